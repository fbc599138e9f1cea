/* A latch as in src/backend/storage/ipc/latch.c: a flag a process sleeps on with a timeout and
 * others set. Setting an already set latch costs nothing; setting the latch of a process that
 * may be asleep costs the setter a signal (kill()), and the owner a wake-up. */
#pragma once

#include "sim/wait_events.hpp"

namespace sim {

class Proc;

class Latch {
public:
  Latch(Proc& owner, double signal_cost);

  /// SetLatch. Returns true when the owner had to be signalled.
  bool set(Proc& setter);
  /// WaitLatch(WL_LATCH_SET | WL_TIMEOUT) by the owner: true if the latch is set.
  bool wait(double timeout, WaitEventId event);
  /// ResetLatch.
  void reset() { is_set_ = false; }
  bool is_set() const { return is_set_; }
  /// Whether the owner is (or may be about to be) asleep in wait().
  bool maybe_sleeping() const { return maybe_sleeping_; }

private:
  Proc& owner_;
  double signal_cost_;
  bool is_set_         = false;
  bool maybe_sleeping_ = false;
};

} // namespace sim
