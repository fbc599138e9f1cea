/* Transaction status lookups, following src/backend/access/transam/transam.c of PostgreSQL 15:
 * TransactionLogFetch keeps a single-entry cache (cachedFetchXid) per backend in front of the
 * CLOG, so repeated questions about one transaction cost nothing. */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"

namespace pg {

bool TransactionIdDidCommit(Backend& me, Clog& clog, TransactionId xid);
/// The LSN an asynchronous commit must be flushed to before its hint bits may be set.
XLogRecPtr TransactionIdGetCommitLSN(Backend& me, Clog& clog, TransactionId xid);

} // namespace pg
