/* Transaction status lookups, following src/backend/access/transam/transam.c of PostgreSQL 15:
 * TransactionLogFetch keeps a single-entry cache (cachedFetchXid) per backend in front of the
 * CLOG, so repeated questions about one transaction cost nothing. */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"

namespace pg {

bool TransactionIdDidCommit(Backend& me, Clog& clog, TransactionId xid, XidAsker asker);
/// TransactionIdIsKnownCompleted: the transaction is in the single-entry cache, which holds
/// final states only, so it has ended.
inline bool TransactionIdIsKnownCompleted(const Backend& me, TransactionId xid)
{
  return xid == me.cachedFetchXid;
}
/// The LSN an asynchronous commit must be flushed to before its hint bits may be set.
XLogRecPtr TransactionIdGetCommitLSN(Backend& me, Clog& clog, TransactionId xid);

} // namespace pg
