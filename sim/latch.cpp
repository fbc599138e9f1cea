/* Latches: see latch.hpp. */
#include "sim/latch.hpp"

#include "sim/clock.hpp"
#include "sim/proc.hpp"

namespace sim {

Latch::Latch(Proc& owner, double signal_cost) : owner_(owner), signal_cost_(signal_cost) {}

bool Latch::set(Proc& setter)
{
  if (is_set_) return false;
  is_set_ = true;
  if (!maybe_sleeping_) return false;
  setter.stall(signal_cost_);
  // The owner wakes when the signal is sent, at the setter's own time, not at the engine's
  // clock behind it.
  setter.flush();
  owner_.wake();
  return true;
}

bool Latch::wait(double timeout, WaitEventId event)
{
  owner_.flush();
  if (is_set_) return true;
  maybe_sleeping_       = true;
  const double deadline = now() + timeout;
  while (!is_set_) {
    const double remaining = deadline - now();
    if (remaining <= 0 || !owner_.sleep_for(remaining, event)) break;
  }
  maybe_sleeping_ = false;
  return is_set_;
}

} // namespace sim
