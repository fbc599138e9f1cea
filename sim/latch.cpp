/* Latches: see latch.hpp. */
#include "sim/latch.hpp"

#include "sim/clock.hpp"
#include "sim/proc.hpp"

namespace sim {

Latch::Latch(Proc& owner, const LatchParams& params) : owner_(owner), params_(params) {}

// SetLatch (latch.c): before 14, kill() whenever the latch was not set; from 14, only when the
// owner may be asleep, since an owner that is awake checks the flag before it sleeps.
bool Latch::set(Proc& setter)
{
  if (is_set_) return false;
  is_set_ = true;
  if (!maybe_sleeping_ && !params_.signal_always) return false;
  setter.stall(params_.signal);
  if (params_.signal_always) signals_pending_++;
  if (!maybe_sleeping_) return true;
  // The owner wakes when the signal is sent, at the setter's own time, not at the engine's
  // clock behind it.
  setter.flush();
  owner_.wake();
  return true;
}

// A signal interrupts the owner wherever it is; its handler's cost is charged at the owner's
// next wait (or on waking from it), not at the instant it arrived: the same CPU time, a few
// microseconds late at most.
void Latch::run_signal_handlers()
{
  if (signals_pending_ == 0) return;
  owner_.stall(params_.signal_handler * signals_pending_);
  signals_pending_ = 0;
}

bool Latch::wait(double timeout, WaitEventId event)
{
  owner_.flush(); // signals sent before the owner's own time have arrived
  if (params_.wait_set_per_call) owner_.stall(params_.wait_set);
  run_signal_handlers();
  if (is_set_) return true;
  maybe_sleeping_       = true;
  const double deadline = now() + timeout;
  while (!is_set_) {
    const double remaining = deadline - now();
    if (remaining <= 0 || !owner_.sleep_for(remaining, event)) break;
  }
  maybe_sleeping_ = false;
  run_signal_handlers();
  return is_set_;
}

} // namespace sim
