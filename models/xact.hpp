/* Transaction commit, following src/backend/access/transam/xact.c of PostgreSQL 15
 * (CommitTransaction, RecordTransactionCommit): the commit record, then either XLogFlush and the
 * CLOG update (synchronous_commit on) or XLogSetAsyncXactLSN and a CLOG update carrying the
 * commit LSN (off); then the ProcArray and the transaction's locks. */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"
#include "models/lmgr.hpp"
#include "models/procarray.hpp"
#include "models/scenario.hpp"
#include "models/xlog.hpp"

namespace pg {

class Xact {
public:
  Xact(const Scenario& scenario, Xlog& xlog, Clog& clog, ProcArray& procarray, LockManager& locks);

  void StartTransaction(Backend& me);
  void CommitTransaction(Backend& me);
  std::uint64_t commits() const { return commits_; }
  void reset_stats() { commits_ = 0; }

private:
  void RecordTransactionCommit(Backend& me);

  const Scenario& scenario_;
  Xlog& xlog_;
  Clog& clog_;
  ProcArray& procarray_;
  LockManager& locks_;
  std::uint64_t commits_ = 0;
};

} // namespace pg
