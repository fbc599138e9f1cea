/* Run control: see simulation.hpp. */
#include "sim/simulation.hpp"

#include "sim/clock.hpp"
#include "sim/lookahead.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

namespace sim {

namespace {

constexpr const char* kControlActor = "control";

// SimGrid's deadlock signal is static and takes no argument: it reaches the one Simulation of
// the process through this pointer.
Simulation* instance = nullptr;

std::string seconds_text(double t)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", t);
  return buf;
}

// AddressSanitizer cannot follow the stacks SimGrid's raw contexts swap between (Debian's SimGrid
// is not built with ASan's fiber annotations): it reports false stack overflows whenever an actor
// unwinds. Sanitizer builds therefore give every actor a thread of its own; the results are the
// same, only slower.
#ifdef WALSIM_SANITIZE_BUILD
constexpr const char* kContextFactory = "thread";
#else
constexpr const char* kContextFactory = "raw";
#endif

// Nothing in walsim communicates over SimGrid's network: the constant network model, the
// simplest, spares the engine a max-min network model that it would otherwise update and query
// at every time step (about 1% of all instructions). Timings do not depend on it.
constexpr const char* kNetworkModel = "Constant";

} // namespace

Simulation::Simulation(const std::vector<std::string>& args)
{
  std::vector<std::string> argv_store{"walsim", "--log=root.thresh:critical",
                                      std::string("--cfg=contexts/factory:") + kContextFactory,
                                      std::string("--cfg=network/model:") + kNetworkModel};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  try {
    engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  } catch (const std::exception& e) {
    throw EngineOptionError(std::string("SimGrid rejected an engine option: ") + e.what());
  }
  follow_engine_clock();
  auto* zone = simgrid::s4u::create_full_zone("machine");
  host_      = zone->create_host("server", 1e9);
  zone->seal();
  all_returned_ = simgrid::s4u::Semaphore::create(0);
  instance      = this;
  simgrid::s4u::Engine::on_deadlock_cb([]() {
    if (instance != nullptr) instance->report_deadlock("every actor waits for a wake-up that no actor is left to send");
  });
}

Simulation::~Simulation()
{
  instance = nullptr;
}

double Simulation::now()
{
  return sim::now();
}

void Simulation::spawn(const std::string& name, std::function<void()> body)
{
  running_actors_++;
  lookahead::note_ready();
  simgrid::s4u::Actor::create(name, host_, [this, body = std::move(body)]() {
    lookahead::note_running();
    try {
      body();
    } catch (const std::exception&) {
      // SimGrid aborts the process on an exception leaving an actor: stop every actor instead,
      // and rethrow from run() so the caller reports it and writes no result. SimGrid's own
      // ForcefulKillException is no std::exception and passes untouched (a rethrow here would
      // also trip AddressSanitizer on SimGrid's swapped stacks).
      if (!actor_error_) actor_error_ = std::current_exception();
      simgrid::s4u::Actor::kill_all();
      return;
    }
    if (--running_actors_ == 0) all_returned_->release();
  })->daemonize();
}

void Simulation::run(const Window& window, const std::function<void()>& on_measure,
                     const std::function<void(double)>& on_progress, const std::function<void()>& on_end)
{
  lookahead::note_ready();
  simgrid::s4u::Actor::create(kControlActor, host_, [&window, &on_measure, &on_progress, &on_end]() {
    lookahead::note_running();
    lookahead::sleep_until(window.warmup);
    if (on_measure) on_measure();
    const double start = now();
    const double end   = start + window.duration;
    if (window.progress > 0 && on_progress) {
      for (double t = start + window.progress; t < end - 1e-12; t += window.progress) {
        lookahead::sleep_until(t);
        on_progress(t - start);
      }
    }
    lookahead::sleep_until(end);
    if (on_end) on_end();
  });
  run_engine();
}

void Simulation::run_to_completion()
{
  // The control actor keeps the daemons alive without a timed activity of its own, so that
  // SimGrid can tell a deadlock from a long wait.
  if (running_actors_ > 0) simgrid::s4u::Actor::create(kControlActor, host_, [this]() { all_returned_->acquire(); });
  run_engine();
}

void Simulation::run_engine()
{
  const auto t0 = std::chrono::steady_clock::now();
  engine_->run();
  wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (actor_error_) std::rethrow_exception(std::exchange(actor_error_, nullptr));
  if (deadlocked_)
    throw Deadlock("the simulation deadlocked at simulated time " + seconds_text(deadlock_time_) +
                   " s (see the report above)");
}

void Simulation::on_deadlock(DeadlockHook hook)
{
  deadlock_hooks_.push_back(std::move(hook));
}

void Simulation::declare_deadlock(const std::string& reason)
{
  if (instance == nullptr) throw Deadlock(reason);
  instance->report_deadlock(reason);
  simgrid::s4u::Actor::kill_all();
  simgrid::s4u::this_actor::exit();
}

// The report is written at once and in one piece, so that it is seen even if what follows the
// deadlock goes wrong too.
void Simulation::report_deadlock(const std::string& reason)
{
  deadlocked_    = true;
  deadlock_time_ = now();
  std::ostringstream out;
  out << "walsim: DEADLOCK at simulated time " << seconds_text(deadlock_time_) << " s: " << reason << "\n";
  out << "walsim: actors still alive:";
  for (const auto& actor : engine_->get_all_actors())
    if (actor->get_name() != kControlActor) out << " " << actor->get_name();
  out << "\n";
  for (const auto& hook : deadlock_hooks_) {
    try {
      hook(out);
    } catch (const std::exception& e) {
      out << "walsim: (a deadlock report hook failed: " << e.what() << ")\n";
    }
  }
  std::cerr << out.str() << std::flush;
}

long peak_rss_kb()
{
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      long kb = 0;
      status >> kb;
      return kb;
    }
    std::getline(status, key);
  }
  return 0;
}

} // namespace sim
