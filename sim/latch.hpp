/* A latch as in src/backend/storage/ipc/latch.c: a flag a process sleeps on with a timeout and
 * others set. Setting an already set latch costs nothing. How a set reaches the owner changed in
 * PostgreSQL 14, and the simulated costs follow the version modelled (LatchParams). */
#pragma once

#include "sim/wait_events.hpp"

namespace sim {

class Proc;

struct LatchParams {
  /// kill(): the setter's cost of signalling the owner.
  double signal = 3e-6;
  /// 9.1-13: SetLatch signals the owner whenever it sets the latch, awake or asleep; 14+ only
  /// when the owner may be asleep (maybe_sleeping).
  bool signal_always = false;
  /// 9.1-13: the owner's cost of each signal it receives (delivery, latch_sigusr1_handler and
  /// its self-pipe write when waiting, sigreturn). 14+ reads a signalfd in its wait: no handler.
  double signal_handler = 1e-6;
  /// 9.6-13: WaitLatch builds and frees an epoll wait set on every call (epoll_create1, two
  /// epoll_ctl, close); 14+ keeps one set, and 9.1-9.5 polled without one.
  bool wait_set_per_call = false;
  double wait_set        = 2e-6;
};

class Latch {
public:
  Latch(Proc& owner, const LatchParams& params);

  /// SetLatch. Returns true when the owner was signalled.
  bool set(Proc& setter);
  /// WaitLatch(WL_LATCH_SET | WL_TIMEOUT) by the owner: true if the latch is set.
  bool wait(double timeout, WaitEventId event);
  /// ResetLatch.
  void reset() { is_set_ = false; }
  bool is_set() const { return is_set_; }
  /// Whether the owner is (or may be about to be) asleep in wait().
  bool maybe_sleeping() const { return maybe_sleeping_; }

private:
  void run_signal_handlers();

  Proc& owner_;
  LatchParams params_;
  bool is_set_         = false;
  bool maybe_sleeping_ = false;
  int signals_pending_ = 0; // signals the owner has received and not yet paid for
};

} // namespace sim
