/* A spinlock (src/backend/storage/lmgr/s_lock.c): a test-and-set on one contended cache line,
 * held for a short critical section, with LWLOCK_STATS-style counters so that the busiest
 * spinlocks can be reported beside the LWLocks.
 */
#pragma once

#include "sim/cacheline.hpp"
#include "sim/lwlock.hpp"

namespace sim {

class Proc;

class Spinlock {
public:
  /// Spinning longer than spin_delay_after counts one spin delay (perform_spin_delay).
  explicit Spinlock(double spin_delay_after = 50e-6) : spin_delay_after_(spin_delay_after) {}

  /// SpinLockAcquire, `section` seconds of work under the lock, SpinLockRelease. The process
  /// stalls until done; returns the time spent waiting for other holders.
  double run(Proc& proc, double section);

  const LWLockStats& stats() const { return stats_; }
  void reset_stats() { stats_ = LWLockStats(); }

private:
  CacheLine line_;
  LWLockStats stats_;
  double spin_delay_after_;
};

} // namespace sim
