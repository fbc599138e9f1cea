/* Heavyweight locks as pgbench meets them, following src/backend/storage/lmgr/lmgr.c and lock.c
 * of PostgreSQL 15: XactLockTableWait (wait for another transaction to end: Lock:transactionid)
 * and tuple locks (heap_acquire_tuplock: Lock:tuple), granted in queue order. */
#pragma once

#include "models/backend.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"

#include <vector>

namespace pg {

/// A lock on one tuple (LockTuple), held while waiting for its updater's transaction.
struct TupleLock {
  Backend* holder = nullptr;
  std::vector<Backend*> waiters; // FIFO; short, and cheap to hold for every row
};

class LockManager {
public:
  LockManager(const Scenario& scenario, const WaitEvents& events);

  /// Sleeps until holder's transaction xid has ended.
  void XactLockTableWait(Backend& me, Backend& holder, TransactionId xid);
  /// LockReleaseAll at transaction end: wakes those waiting for me's transaction.
  void ReleaseXactLock(Backend& me);
  void LockTuple(Backend& me, TupleLock& lock);
  void UnlockTuple(Backend& me, TupleLock& lock);

private:
  const Scenario& scenario_;
  const WaitEvents& ev_;
};

} // namespace pg
