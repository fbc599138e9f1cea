/* The simulated time, as SimGrid's engine keeps it, readable cheaply.
 *
 * The models ask for the time millions of times per simulated second. s4u::Engine::get_clock()
 * is out of line and costs tens of instructions each time (a static guard, the model checker's
 * test, two more calls). The engine changes its clock only when it advances time, and announces
 * every advance, so the value is copied then and read inline here: the very same double.
 */
#pragma once

namespace sim {

namespace clock_detail {
extern double engine_now; // the engine's clock, as of its last time advance
} // namespace clock_detail

/// The current simulated time, in seconds: equal to simgrid::s4u::Engine::get_clock().
inline double now()
{
  return clock_detail::engine_now;
}

/// Keeps now() equal to the engine's clock from here on; called once the engine exists.
void follow_engine_clock();

} // namespace sim
