/* What the engine will do next, as far as walsim's actors have told it: the earliest time any
 * actor waits for, and how many actors a wake-up has made ready to run now.
 *
 * A process whose CPU work ends before either could do anything needs no engine sleep for it:
 * in a sequential simulation nothing else would happen meanwhile, so its clock moves on at once
 * (skipping about a third of the sleeps with 64 clients, nearly all at 1 client). Every timed
 * wait goes through here for that to hold, and takes an absolute simulated time, because now()
 * can run ahead of the engine's clock until the next engine step.
 */
#pragma once

namespace simgrid::s4u {
class Semaphore;
}

namespace sim::lookahead {

/// Sleeps the running actor until simulated time t (no-op if t is not after now()). The wait
/// is registered, so no other process skips past it.
void sleep_until(double t);
/// As Semaphore::acquire_timeout, with the timeout counted from now(). True if it timed out.
bool acquire_timeout(simgrid::s4u::Semaphore& semaphore, double timeout);

/// Semaphore::release and this_actor::yield, which leave the caller ready to run: the engine
/// may run other ready actors before it goes on.
void release(simgrid::s4u::Semaphore& semaphore);
void yield();

/// A Semaphore release made an actor ready to run at the present time.
void note_ready();
/// A ready actor runs.
void note_running();

/// Runs the caller's CPU work to `until` without an engine sleep, if nothing else can happen
/// before: no actor ready, no registered wait ending at or before `until`. False otherwise.
bool skip_to(double until);

/// Since the simulation began: CPU work that asked to skip its engine sleep, and how much did.
struct SkipCounts {
  unsigned long long asked   = 0;
  unsigned long long skipped = 0;
};
SkipCounts skip_counts();

/// The simulated time for the engine's clock engine_t (less the simulation's origin): the end of
/// the wait that the engine ended there, exactly as its actor computed it. SimGrid's own
/// arithmetic lands within an ulp or so of it, and a skip must give the same time as a sleep.
double time_at(double engine_t);

/// Forgets the previous simulation's waits (a process may run several simulations in turn).
/// WALSIM_NO_SKIP=1 in the environment turns skipping off: the tests compare both ways.
void reset();

} // namespace sim::lookahead
