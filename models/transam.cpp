/* TransactionLogFetch and friends (transam.c, PostgreSQL 15). */
#include "models/transam.hpp"

namespace pg {

namespace {
XidStatus TransactionLogFetch(Backend& me, Clog& clog, TransactionId xid, XLogRecPtr* lsn, XidAsker asker)
{
  clog.stats().fetches++;
  if (xid == me.cachedFetchXid) {
    clog.stats().cache_hits++;
    *lsn = me.cachedCommitLSN;
    return me.cachedFetchXidStatus;
  }
  if (xid < FirstNormalTransactionId) {
    *lsn = InvalidXLogRecPtr;
    return XidStatus::Committed;
  }
  clog.stats().lookups_by[static_cast<std::size_t>(asker)]++;
  const XidStatus status = clog.TransactionIdGetStatus(me, xid, lsn);
  // Only final states are cached: an in-progress transaction may still change.
  if (status != XidStatus::InProgress) {
    me.cachedFetchXid       = xid;
    me.cachedFetchXidStatus = status;
    me.cachedCommitLSN      = *lsn;
  }
  return status;
}
} // namespace

bool TransactionIdDidCommit(Backend& me, Clog& clog, TransactionId xid, XidAsker asker)
{
  XLogRecPtr lsn = InvalidXLogRecPtr;
  return TransactionLogFetch(me, clog, xid, &lsn, asker) == XidStatus::Committed;
}

XLogRecPtr TransactionIdGetCommitLSN(Backend& me, Clog& clog, TransactionId xid)
{
  XLogRecPtr lsn = InvalidXLogRecPtr;
  TransactionLogFetch(me, clog, xid, &lsn, XidAsker::SetHintBits);
  return lsn;
}

} // namespace pg
