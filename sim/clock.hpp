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
// The engine's clock less engine_origin, as of its last time advance, or later: a process that
// nothing else can interrupt runs the clock ahead of the engine (lookahead.hpp).
extern double engine_now;
extern double engine_origin; // the engine's clock when the current simulation began
/// Moves now() forward to t, which no registered wait comes before.
void run_ahead_to(double t);
} // namespace clock_detail

/// The current simulated time, in seconds: simgrid::s4u::Engine::get_clock() since the current
/// simulation began. SimGrid 3.32 does not reset its clock when a process creates a second engine
/// (a test binary running several cases in turn), so each simulation counts from its own origin;
/// in a process's first simulation the origin is 0 and now() is the engine's clock exactly.
inline double now()
{
  return clock_detail::engine_now;
}

/// The engine's time for simulated time t, for SimGrid calls that take an absolute time.
inline double engine_time(double t)
{
  return t + clock_detail::engine_origin;
}

/// Starts a simulation's time at the engine's present clock and keeps now() following it; called
/// once the engine exists.
void follow_engine_clock();

} // namespace sim
