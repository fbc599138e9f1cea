/* Transaction and tuple locks (lmgr.c, lock.c; PostgreSQL 15). */
#include "models/lmgr.hpp"

#include <stdexcept>

namespace pg {

LockManager::LockManager(const Scenario& scenario, const WaitEvents& events) : scenario_(scenario), ev_(events) {}

void LockManager::XactLockTableWait(Backend& me, Backend& holder, TransactionId xid)
{
  me.proc.work(scenario_.costs.lock_manager);
  if (holder.xid != xid) return;
  me.waiting_on_lock = true;
  holder.xact_lock_waiters.push_back(&me);
  while (holder.xid == xid) me.proc.sleep(ev_.LockTransactionId);
  me.waiting_on_lock = false;
  me.proc.work(scenario_.costs.lock_manager);
}

void LockManager::ReleaseXactLock(Backend& me)
{
  if (me.xact_lock_waiters.empty()) return;
  for (Backend* w : me.xact_lock_waiters) {
    me.proc.stall(scenario_.hardware.os.futex_wake);
    me.proc.flush(); // the waiter wakes at the committer's time, not before its commit has run
    w->proc.wake();
  }
  me.xact_lock_waiters.clear();
}

void LockManager::LockTuple(Backend& me, TupleLock& lock)
{
  me.proc.work(scenario_.costs.lock_manager);
  if (lock.holder == nullptr) {
    lock.holder = &me;
    return;
  }
  lock.waiters.push_back(&me);
  me.waiting_on_lock = true;
  while (lock.holder != &me) me.proc.sleep(ev_.LockTuple);
  me.waiting_on_lock = false;
}

// Heavyweight locks are granted to the next waiter by the releaser (ProcLockWakeup).
void LockManager::UnlockTuple(Backend& me, TupleLock& lock)
{
  if (lock.holder != &me) throw std::logic_error("UnlockTuple: tuple lock not held by " + me.proc.name());
  me.proc.work(scenario_.costs.lock_manager);
  if (lock.waiters.empty()) {
    lock.holder = nullptr;
    return;
  }
  lock.holder = lock.waiters.front();
  lock.waiters.erase(lock.waiters.begin());
  me.proc.stall(scenario_.hardware.os.futex_wake);
  me.proc.flush();
  lock.holder->proc.wake();
}

} // namespace pg
