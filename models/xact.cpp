/* CommitTransaction and RecordTransactionCommit (xact.c, PostgreSQL 15). */
#include "models/xact.hpp"

namespace pg {

namespace {
// XLogRecord + data header + xl_xact_commit (xact_time), MAXALIGNed.
constexpr double SizeOfCommitRecord = 40;
} // namespace

Xact::Xact(const Scenario& scenario, Xlog& xlog, Clog& clog, ProcArray& procarray, LockManager& locks)
    : scenario_(scenario), xlog_(xlog), clog_(clog), procarray_(procarray), locks_(locks)
{
}

void Xact::StartTransaction(Backend& me)
{
  me.XactLastRecEnd = InvalidXLogRecPtr;
}

void Xact::RecordTransactionCommit(Backend& me)
{
  // Whether the transaction wrote WAL of its own: changes to unlogged tables write none, and
  // then there is no point waiting for the commit record to be flushed.
  const bool wrote_xlog = me.XactLastRecEnd != InvalidXLogRecPtr;
  const XLogRecPtr lsn  = xlog_.XLogInsert(me, XLogRecordData{SizeOfCommitRecord, 0});
  if (wrote_xlog && scenario_.settings.synchronous_commit) {
    xlog_.XLogFlush(me, lsn);
    clog_.TransactionIdSetTreeStatus(me, me.xid, XidStatus::Committed, InvalidXLogRecPtr);
  } else {
    xlog_.XLogSetAsyncXactLSN(me, lsn);
    clog_.TransactionIdSetTreeStatus(me, me.xid, XidStatus::Committed, lsn);
  }
}

void Xact::CommitTransaction(Backend& me)
{
  me.proc.work(scenario_.costs.commit);
  if (me.xid != InvalidTransactionId) {
    RecordTransactionCommit(me);
    procarray_.ProcArrayEndTransaction(me);
    locks_.ReleaseXactLock(me);
    commits_++;
  } else {
    procarray_.ProcArrayEndTransaction(me);
  }
  me.XactLastRecEnd = InvalidXLogRecPtr;
}

} // namespace pg
