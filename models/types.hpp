/* PostgreSQL's basic types, as the models use them. */
#pragma once

#include <cstdint>

namespace pg {

using XLogRecPtr    = std::uint64_t; // an LSN: byte position in the WAL stream
using TransactionId = std::uint32_t;

constexpr XLogRecPtr InvalidXLogRecPtr           = 0;
constexpr TransactionId InvalidTransactionId     = 0;
constexpr TransactionId FrozenTransactionId      = 2;
constexpr TransactionId FirstNormalTransactionId = 3;

constexpr int BLCKSZ      = 8192; // heap and CLOG pages
constexpr int XLOG_BLCKSZ = 8192; // WAL pages

/// clog.c: two status bits per transaction.
constexpr int CLOG_XACTS_PER_PAGE = BLCKSZ * 4;
/// clog.c: the latest asynchronous commit LSN is kept per group of 32 transactions (1024 per page).
constexpr int CLOG_XACTS_PER_LSN_GROUP = 32;
constexpr int CLOG_LSNS_PER_PAGE       = CLOG_XACTS_PER_PAGE / CLOG_XACTS_PER_LSN_GROUP;

enum class XidStatus : std::uint8_t { InProgress, Committed, Aborted };

inline XLogRecPtr page_start(XLogRecPtr lsn)
{
  return lsn - lsn % XLOG_BLCKSZ;
}

} // namespace pg
