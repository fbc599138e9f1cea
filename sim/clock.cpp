/* The cached simulated time: see clock.hpp. */
#include "sim/clock.hpp"

#include "sim/lookahead.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace sim {

namespace clock_detail {
double engine_now    = 0;
double engine_origin = 0;

void run_ahead_to(double t)
{
  engine_now = t;
}
} // namespace clock_detail

void follow_engine_clock()
{
  static bool following       = false;
  clock_detail::engine_origin = simgrid::s4u::Engine::get_clock();
  clock_detail::engine_now    = 0;
  lookahead::reset();
  if (following) return;
  following = true;
  // The engine fires this right after moving its clock, and moves it nowhere else.
  simgrid::s4u::Engine::on_time_advance_cb([](double) {
    clock_detail::engine_now = lookahead::time_at(simgrid::s4u::Engine::get_clock() - clock_detail::engine_origin);
  });
}

} // namespace sim
