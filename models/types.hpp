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
constexpr int CLOG_XACTS_PER_PAGE      = BLCKSZ * 4;
constexpr int CLOG_LSNS_PER_PAGE       = BLCKSZ / 256; // (32) group LSNs per CLOG page
constexpr int CLOG_XACTS_PER_LSN_GROUP = CLOG_XACTS_PER_PAGE / CLOG_LSNS_PER_PAGE;

enum class XidStatus : std::uint8_t { InProgress, Committed, Aborted };

inline XLogRecPtr page_start(XLogRecPtr lsn)
{
  return lsn - lsn % XLOG_BLCKSZ;
}

} // namespace pg
