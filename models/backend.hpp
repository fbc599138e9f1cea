/* A PostgreSQL server process: its PGPROC fields and the backend-local globals the models use
 * (LogwrtResult, MyLockNo, cachedFetchXid, ...), named as in PostgreSQL. */
#pragma once

#include "models/types.hpp"
#include "sim/page_table.hpp"
#include "sim/proc.hpp"
#include "sim/rng.hpp"

#include <memory>
#include <string>
#include <vector>

namespace pg {

/// An MVCC snapshot (snapshot.h): xids at or above xmax, or listed in xip, are not visible.
struct Snapshot {
  TransactionId xmin = InvalidTransactionId;
  TransactionId xmax = InvalidTransactionId;
  std::vector<TransactionId> xip; // sorted

  /// XidInMVCCSnapshot: is xid still running (invisible) as of this snapshot?
  bool contains(TransactionId xid) const;
};

struct XLogwrtResult {
  XLogRecPtr Write = InvalidXLogRecPtr;
  XLogRecPtr Flush = InvalidXLogRecPtr;
};

class Backend {
public:
  Backend(std::string name, int pgprocno, sim::Cpu& cpu, sim::Rng rng);
  Backend(const Backend&)            = delete;
  Backend& operator=(const Backend&) = delete;

  sim::Proc proc;
  const int pgprocno;
  sim::Rng rng;
  /// Its mappings of shared memory, for a process forked once the server ran (a client's
  /// backend); null where faults are not modelled.
  std::unique_ptr<sim::PageTable> page_table;

  // xlog.c
  XLogwrtResult LogwrtResult;
  int lockToTry             = -1;
  int MyLockNo              = 0;
  XLogRecPtr XactLastRecEnd = InvalidXLogRecPtr;

  // transam.c: the single-entry transaction status cache
  TransactionId cachedFetchXid   = InvalidTransactionId;
  XidStatus cachedFetchXidStatus = XidStatus::InProgress;
  XLogRecPtr cachedCommitLSN     = InvalidXLogRecPtr;

  // PGPROC
  TransactionId xid    = InvalidTransactionId; // MyProc->xid
  bool waiting_on_lock = false;                // MyProc->waitLock != NULL
  TransactionId xmin   = InvalidTransactionId; // MyProc->xmin, the oldest xid our snapshot needs (set by ProcArray)
  Snapshot snapshot;                           // the current statement's snapshot
  TransactionId RecentXmin = InvalidTransactionId;
  /// Oldest xmin of any process at our last snapshot: versions deleted before it are dead to
  /// everyone and may be pruned (GlobalVisState's horizon).
  TransactionId GlobalXmin = InvalidTransactionId;

  // clog.c group update (PGPROC clogGroup* fields)
  bool clogGroupMember               = false;
  TransactionId clogGroupMemberXid   = InvalidTransactionId;
  int clogGroupMemberPage            = -1;
  XLogRecPtr clogGroupMemberLsn      = InvalidXLogRecPtr;
  XidStatus clogGroupMemberXidStatus = XidStatus::Committed;
  // procarray.c group XID clearing
  bool procArrayGroupMember = false;

  /// lmgr: processes blocked in XactLockTableWait on this backend's transaction.
  std::vector<Backend*> xact_lock_waiters;
};

} // namespace pg
