/* The commit log, following src/backend/access/transam/clog.c and slru.c of PostgreSQL 15:
 * two status bits per transaction on 8kB pages kept in NUM_CLOG_BUFFERS shared buffers under
 * CLogControlLock (XactSLRULock), a group commit LSN per 1024 transactions for asynchronous
 * commits, and the group status update of TransactionGroupUpdateXidStatus (PostgreSQL 11+,
 * first proposed in the 2016 "Speed up Clog Access" thread) as a policy. */
#pragma once

#include "models/backend.hpp"
#include "models/scenario.hpp"
#include "models/types.hpp"
#include "models/wait_event.hpp"
#include "sim/cacheline.hpp"
#include "sim/lwlock.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pg {

class Xlog;

/// Whose question a CLOG lookup answered (a TransactionLogFetch that missed the single-entry
/// cache), named after the heapam_visibility.c routine that asked, as a profile of the real server
/// attributes them; SetHintBits asks for the commit LSN.
enum class XidAsker : std::uint8_t { SatisfiesMVCC, SatisfiesUpdate, SatisfiesVacuum, SetHintBits, Count };

/// pg_stat_slru for the Xact SLRU, plus group-update counts.
struct SlruStats {
  std::uint64_t blks_zeroed   = 0;
  std::uint64_t blks_hit      = 0;
  std::uint64_t blks_read     = 0;
  std::uint64_t blks_written  = 0;
  std::uint64_t group_updates = 0; // leaders' group updates
  std::uint64_t group_members = 0; // statuses set on behalf of another process
  std::uint64_t fetches       = 0; // TransactionLogFetch calls (transam.c)
  std::uint64_t cache_hits    = 0; // ... answered by the single-entry cache
  std::array<std::uint64_t, static_cast<std::size_t>(XidAsker::Count)> lookups_by{}; // ... not: by asker
  void reset() { *this = SlruStats(); }
};

class Clog {
public:
  Clog(const Scenario& scenario, const WaitEvents& events, Xlog& xlog);

  /// TransactionIdGetStatus: the status and group LSN of xid, read under CLogControlLock.
  XidStatus TransactionIdGetStatus(Backend& me, TransactionId xid, XLogRecPtr* lsn);
  /// TransactionIdSetTreeStatus for a transaction without subtransactions.
  void TransactionIdSetTreeStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn);
  /// ExtendCLOG: zero the page of a new transaction id that starts one (under XidGenLock).
  void ExtendCLOG(Backend& me, TransactionId newestXact);

  /// The recorded status, without cost: for invariant checks and reports only.
  XidStatus peek(TransactionId xid) const;
  sim::LWLock& lock() { return XactSLRULock_; }
  SlruStats& stats() { return stats_; }

private:
  // A slot's page_status besides empty: SLRU_PAGE_VALID, READ_IN_PROGRESS or WRITE_IN_PROGRESS.
  enum class PageIo : std::uint8_t { None, Read, Write };

  void TransactionIdSetPageStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn, int pageno);
  void TransactionIdSetPageStatusInternal(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn);
  bool TransactionGroupUpdateXidStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn, int pageno);
  /// SimpleLruReadPage with the lock held exclusively: makes pageno resident, and returns its slot.
  /// write_ok: the caller may use the page while it is being written out.
  int SimpleLruReadPage(Backend& me, int pageno, bool write_ok);
  /// SimpleLruWaitIO: waits, without CLogControlLock, for the I/O on slot to finish.
  void SimpleLruWaitIO(Backend& me, int slot);
  /// SlruInternalWritePage: writes a dirty page out under its buffer lock, without CLogControlLock.
  void SlruInternalWritePage(Backend& me, int slot);
  void SlruPageIO(Backend& me, std::size_t slot, PageIo io, double seconds, sim::WaitEventId event);
  int find_slot(int pageno) const;
  /// find_slot's loop, as a backend runs it: the slots' lines up to the page's.
  int find_slot(Backend& me, int pageno);
  void set_slot_page(Backend& me, int slot, int pageno);
  int SlruSelectLRUPage(Backend& me, int pageno);
  int SlruChooseVictim() const;
  void SlruRecentlyUsed(Backend& me, int slot);
  void record(TransactionId xid, XidStatus status, XLogRecPtr lsn);
  XLogRecPtr group_lsn(TransactionId xid) const;
  /// The pages of the transactions before the window: the latest ones fill the buffers.
  void load_prior_pages();

  const Scenario& scenario_;
  const WaitEvents& ev_;
  Xlog& xlog_;
  sim::LWLock XactSLRULock_;

  // Transactions before first_xid_ (pgbench.prior_transactions) all committed, their group LSNs
  // long flushed; the later ones are recorded from first_xid_ on.
  TransactionId first_xid_;
  std::vector<XidStatus> status_;     // by transaction id - first_xid_
  std::vector<XLogRecPtr> group_lsn_; // by LSN group, from first_xid_'s on

  /// The cache lines of an array with an entry per transaction, 256 transactions to a 64-byte line
  /// (the status bytes hold four; group_lsn's 8-byte entries serve 32 each), for the latest
  /// transaction ids: the line of an id older than the ring starts afresh, as one no core has
  /// written for long.
  class XidLines {
  public:
    sim::CacheLine& of(TransactionId xid);

  private:
    static constexpr std::size_t kRing = 4096;
    std::vector<sim::CacheLine> lines_ = std::vector<sim::CacheLine>(kRing);
    std::vector<std::uint64_t> tags_   = std::vector<std::uint64_t>(kRing, ~std::uint64_t{0});
  };

  // SLRU buffers.
  std::vector<int> page_number_; // -1: empty slot
  std::vector<std::uint64_t> lru_count_;
  std::vector<bool> dirty_;
  std::vector<PageIo> io_;
  // The per-buffer locks an I/O holds while it runs without CLogControlLock.
  std::vector<std::unique_ptr<sim::LWLock>> buffer_locks_;
  std::uint64_t cur_lru_count_ = 0;
  int latest_page_number_      = -1; // the page of the newest transaction id, never evicted

  // Where other cores' writes cost a CLOG access a transfer (slru.h's SlruSharedData): the header,
  // read by every access, shares its line with cur_lru_count; page_lru_count and page_dirty are
  // arrays by slot; the status bytes and group LSNs of recent transactions are written by every
  // commit.
  sim::CacheLine header_line_;
  std::vector<sim::CacheLine> lru_lines_;   // page_lru_count: 16 ints a line
  std::vector<sim::CacheLine> dirty_lines_; // page_dirty: 64 bools a line
  // page_number and page_status, 16 ints a line each, read slot by slot by every lookup and
  // written when a slot takes another page: one line stands for the pair.
  std::vector<sim::CacheLine> slot_lines_;
  XidLines status_lines_;
  XidLines group_lsn_lines_;

  // Group update: procglobal->clogGroupFirst and the members' list.
  sim::CacheLine group_first_;
  std::vector<Backend*> group_;

  SlruStats stats_;
};

} // namespace pg
