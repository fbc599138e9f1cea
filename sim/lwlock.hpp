/* A lightweight lock with the semantics of PostgreSQL's LWLock (src/backend/storage/lmgr/lwlock.c).
 *
 * Shared and exclusive modes; a process that cannot get the lock queues itself, tries once more,
 * then sleeps on its semaphore; a release that leaves the lock free wakes the waiters at the head
 * of the queue (every shared waiter up to and including the first exclusive one), who then retry:
 * there is no hand-off, a running process may take the lock first. LWLockAcquireOrWait and the
 * variable protocol (LWLockWaitForVar / LWLockUpdateVar) used for WAL insertion locks are here
 * too, and the LWLOCK_STATS counters.
 *
 * Two implementations of the lock word are modelled, as their costs differ on many cores:
 * "atomic" (9.5 and later: one compare-and-swap on the state word; the wait list behind a flag
 * bit of it) and "spinlock" (9.4 and earlier: every acquire and release runs under the lock's
 * own spinlock, so even shared acquirers serialise on it).
 */
#pragma once

#include "sim/cacheline.hpp"
#include "sim/wait_events.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

class Proc;

enum class LWLockMode : std::uint8_t { Exclusive, Shared, WaitUntilFree };

struct LWLockParams {
  bool spinlock_impl = false;
  /// Work done while holding the wait-list lock (or, for spinlock_impl, the lock's spinlock).
  double list_hold = 30e-9;
  /// CPU seconds to wake one sleeping waiter (PGSemaphoreUnlock: a futex wake-up).
  double wake_cost = 1.5e-6;
  /// Spinning longer than this on the wait-list lock counts one spin delay (perform_spin_delay).
  double spin_delay_after = 50e-6;
  /// CPU seconds of LWLockAcquire's and LWLockRelease's own code, besides the atomic itself.
  double op_cost = 0;
};

/// LWLOCK_STATS counters, plus the time spent acquiring and the part of it spent asleep.
struct LWLockStats {
  std::uint64_t shacq     = 0;
  std::uint64_t exacq     = 0;
  std::uint64_t blk       = 0;
  std::uint64_t spindelay = 0;
  double acquire_seconds  = 0; // inside acquire calls, from call to return
  double wait_seconds     = 0; // asleep on the semaphore

  void add(const LWLockStats& other);
};

class LWLock {
public:
  LWLock(std::string name, WaitEventId event, const LWLockParams& params);
  LWLock(const LWLock&)            = delete;
  LWLock& operator=(const LWLock&) = delete;
  LWLock(LWLock&&)                 = default;

  const std::string& name() const { return name_; }

  /// LWLockAcquire: true if the lock was had without sleeping.
  bool acquire(Proc& proc, LWLockMode mode);
  bool conditional_acquire(Proc& proc, LWLockMode mode); // LWLockConditionalAcquire
  /// LWLockAcquireOrWait: true with the lock if it was free; else waits until it is released
  /// and returns false without it.
  bool acquire_or_wait(Proc& proc, LWLockMode mode);
  void release(Proc& proc); // LWLockRelease

  /// LWLockWaitForVar: true if the lock is free; false with *newval when the protected
  /// variable differs from oldval (waiting while the lock is held and it equals oldval). A
  /// caller scanning many locks overlaps the first load of each (overlap, as CacheLine::read).
  bool wait_for_var(Proc& proc, std::uint64_t oldval, std::uint64_t* newval, double overlap = 1);
  void update_var(Proc& proc, std::uint64_t value);        // LWLockUpdateVar
  void release_clear_var(Proc& proc, std::uint64_t value); // LWLockReleaseClearVar
  std::uint64_t var() const { return var_; }

  /// No holder (a release may still be in flight until its holder's local time: see release()).
  bool is_free() const { return exclusive_ == nullptr && shared_ == 0; }
  const Proc* exclusive_holder() const { return exclusive_; }
  int shared_holders() const { return shared_; }
  std::size_t waiters() const { return waiters_.size(); }
  const std::vector<Proc*>& wait_queue() const { return waiters_; }

  LWLockStats& stats() { return stats_; }
  const LWLockStats& stats() const { return stats_; }

private:
  bool attempt(Proc& proc, LWLockMode mode); // LWLockAttemptLock: true if acquired
  bool holder_conflicts(LWLockMode mode) const;
  double released_at(LWLockMode mode) const;
  void wait_for_release(Proc& proc, double when);
  Proc* releaser_of(double when) const;
  void queue_self(Proc& proc, LWLockMode mode);
  void dequeue_self(Proc& proc);
  void wait_list_lock(Proc& proc);
  void sleep_until_woken(Proc& proc);
  void wakeup(Proc& releaser); // LWLockWakeup
  void wake_var_waiters(Proc& proc);
  void note_held(Proc& proc);
  void note_released(Proc& proc);

  std::string name_;
  WaitEventId event_;
  LWLockParams params_;
  CacheLine line_;
  Proc* exclusive_           = nullptr;
  int shared_                = 0;
  bool release_ok_           = true;
  double excl_released_at_   = 0; // the latest exclusive release, in simulated time
  double shared_released_at_ = 0; // the latest shared release
  Proc* excl_releaser_       = nullptr;
  Proc* shared_releaser_     = nullptr;
  std::uint64_t var_         = 0;
  // A vector, not a std::deque: a deque allocates over half a kilobyte on construction, and most
  // locks (one per buffer page) never have a waiter.
  std::vector<Proc*> waiters_;
  LWLockStats stats_;
};

} // namespace sim
