/* The engine's next events as walsim's actors registered them: see lookahead.hpp. */
#include "sim/lookahead.hpp"

#include "sim/clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/config.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <queue>
#include <string>
#include <vector>

namespace sim::lookahead {

namespace {
// Ends of the timed waits in progress, as a min-heap with lazy removal: an ended wait goes on a
// second heap and leaves the first when it reaches the top of both. Equal ends are
// interchangeable, so removing one by value is exact; no allocation per wait, unlike a multiset.
class Waits {
public:
  void add(double t) { live_.push(t); }
  void remove(double t) { ended_.push(t); }
  bool empty()
  {
    settle();
    return live_.empty();
  }
  double earliest()
  {
    settle();
    return live_.top();
  }
  void clear()
  {
    live_  = Heap();
    ended_ = Heap();
  }

private:
  using Heap = std::priority_queue<double, std::vector<double>, std::greater<>>;
  void settle()
  {
    while (!ended_.empty()) {
      // Every removal matches a wait at or after the earliest; one that does not has nothing left
      // to remove (its wait was cleared with the previous simulation).
      if (live_.empty() || ended_.top() < live_.top()) {
        ended_.pop();
        continue;
      }
      if (ended_.top() != live_.top()) break;
      live_.pop();
      ended_.pop();
    }
  }
  Heap live_, ended_;
};

Waits waits;
int ready         = 0;
bool skip_allowed = true;
// SimGrid's timing precision: it ends together the sleeps that end within about this of each
// other (its test is in the host's flops, not seconds, so a little more), and sleeps at least
// this long. A skip must not change what the engine would have done, so it keeps well clear.
double precision         = 1e-9;
constexpr double kMargin = 10;
SkipCounts counts;

void end_wait(double t)
{
  waits.remove(t);
}

// The engine's own clock: behind now() after a skip, until the engine's next step.
double engine_clock()
{
  return simgrid::s4u::Engine::get_clock();
}
} // namespace

void sleep_until(double t)
{
  if (t <= now()) return;
  waits.add(t);
  simgrid::s4u::this_actor::sleep_until(engine_time(t));
  // A wait that ends within the engine's precision of its start may leave the engine's clock
  // unmoved: the time it asked for is reached all the same, or a caller polling until t would
  // poll for ever.
  if (now() < t) clock_detail::run_ahead_to(t);
  end_wait(t);
}

bool acquire_timeout(simgrid::s4u::Semaphore& semaphore, double timeout)
{
  const double t = now() + timeout;
  waits.add(t);
  const bool timed_out = semaphore.acquire_timeout(engine_time(t) - engine_clock());
  end_wait(t);
  return timed_out;
}

void release(simgrid::s4u::Semaphore& semaphore)
{
  ready++;
  semaphore.release();
  ready--;
}

void yield()
{
  ready++;
  simgrid::s4u::this_actor::yield();
  ready--;
}

void note_ready()
{
  ready++;
}

void note_running()
{
  ready--;
}

bool skip_to(double until)
{
  counts.asked++;
  if (!skip_allowed || ready > 0 || until - now() < precision) return false;
  if (!waits.empty() && waits.earliest() <= until + kMargin * precision) return false;
  clock_detail::run_ahead_to(until);
  counts.skipped++;
  return true;
}

SkipCounts skip_counts()
{
  return counts;
}

double time_at(double engine_t)
{
  if (!waits.empty() && std::abs(waits.earliest() - engine_t) <= precision) return waits.earliest();
  return engine_t;
}

void reset()
{
  waits.clear();
  ready               = 0;
  counts              = SkipCounts{};
  const char* no_skip = std::getenv("WALSIM_NO_SKIP");
  skip_allowed        = no_skip == nullptr || std::string(no_skip) != "1";
  precision           = simgrid::config::get_value<double>("surf/precision");
}

} // namespace sim::lookahead
