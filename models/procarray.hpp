/* The array of running transactions, following src/backend/storage/ipc/procarray.c and
 * varsup.c of PostgreSQL 15: GetNewTransactionId under XidGenLock, GetSnapshotData under
 * ProcArrayLock in shared mode, ProcArrayEndTransaction in exclusive mode (with the group XID
 * clearing of 9.6+ as a policy), and TransactionIdIsInProgress. */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
#include "sim/cacheline.hpp"
#include "sim/lwlock.hpp"

#include <vector>

namespace pg {

class ProcArray {
public:
  ProcArray(const Scenario& scenario, const WaitEvents& events, Clog& clog);

  /// Registers a backend; its pgprocno must be unique.
  void ProcArrayAdd(Backend* proc);
  /// varsup.c: assigns the next transaction id to me (MyProc->xid), extending the CLOG.
  TransactionId GetNewTransactionId(Backend& me);
  /// Takes a new snapshot into me.snapshot (READ COMMITTED: once per statement).
  void GetSnapshotData(Backend& me);
  /// Ends me's transaction in the ProcArray: its xid stops being running.
  void ProcArrayEndTransaction(Backend& me);
  bool TransactionIdIsInProgress(Backend& me, TransactionId xid);
  /// At least `min` other backends are in a transaction and not waiting for a lock.
  bool MinimumActiveBackends(const Backend* me, int min) const;

  /// The backend running xid, or nullptr.
  Backend* holder_of(TransactionId xid) const;
  TransactionId next_xid() const { return nextXid_; }
  sim::LWLock& lock() { return ProcArrayLock_; }
  sim::LWLock& xidgen_lock() { return XidGenLock_; }

private:
  void ProcArrayEndTransactionInternal(Backend& proc);
  void ProcArrayGroupClearXid(Backend& me);
  double scan_cost() const;
  /// Sets proc.xmin (MyProc->xmin), keeping xmins_ in step.
  void set_xmin(Backend& proc, TransactionId xmin);

  const Scenario& scenario_;
  const WaitEvents& ev_;
  Clog& clog_;
  sim::LWLock ProcArrayLock_;
  sim::LWLock XidGenLock_;
  std::vector<Backend*> procs_;
  // Every registered backend's xmin, by pgprocno (InvalidTransactionId where none): the scan of
  // all xmins in GetSnapshotData reads one array rather than chasing a pointer per backend.
  std::vector<TransactionId> xmins_;
  std::vector<TransactionId> running_; // the procs' xids, sorted
  TransactionId nextXid_ = FirstNormalTransactionId;
  sim::CacheLine group_first_;
  std::vector<Backend*> group_;
};

} // namespace pg
