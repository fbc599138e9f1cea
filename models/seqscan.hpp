/* A sequential scan that counts the rows of a table (`select sum(1) from s`), and lazy VACUUM of the
 * same table, on a table whose rows were all inserted by one transaction (create table as).
 *
 * Follows PostgreSQL 9.1: heapam.c (heap_beginscan's choice of the BAS_BULKREAD ring when the
 * table has more than NBuffers / 4 blocks, heapgettup_pagemode and heapgetpage, which checks the
 * visibility of every tuple of a page while it holds the page's share lock), tqual.c (renamed
 * heapam_visibility.c in 12: HeapTupleSatisfiesMVCC, HeapTupleSatisfiesVacuum, SetHintBits,
 * with the flush rule of HintBitRule as heapam_visibility.cpp applies it), transam.c
 * (TransactionIdDidCommit through the backend's single-entry cache: with one inserting
 * transaction, only the first lookup of a backend reaches the CLOG) and vacuumlazy.c
 * (lazy_scan_heap: hint bits, then PD_ALL_VISIBLE with MarkBufferDirty, a real change that is
 * always written).
 *
 * Since every tuple shares one xmin, a page's hint bits are all set or all unset: PageImage keeps
 * that as one XminHint per page, and the per-tuple work is still done per tuple.
 */
#pragma once

#include "models/backend.hpp"
#include "models/buffer_manager.hpp"
#include "models/clog.hpp"
#include "models/scan_scenario.hpp"
#include "models/scenario.hpp"
#include "models/xlog.hpp"

#include <cstdint>

namespace pg {

/// The table scanned: its file, its geometry and the transaction that inserted every row.
struct ScanTable {
  SmgrRelation& rel;
  std::uint64_t rows;
  int rows_per_page;
  TransactionId xmin;
  bool permanent = true;
  /// Tuples on block b (the last page of an initial load may be partly filled).
  int tuples_on(std::uint32_t block) const;
};

/// Counts of one scan or VACUUM pass, besides the buffer manager's IoCounters.
struct HeapPassCounts {
  std::uint64_t tuples        = 0;
  std::uint64_t visible       = 0; // tuples the snapshot sees (the query's sum(1))
  std::uint64_t hints_set     = 0; // tuples that got a hint bit
  std::uint64_t hints_refused = 0; // SetHintBits refused: the commit record is not flushed yet
  std::uint64_t clog_lookups  = 0; // TransactionIdDidCommit calls that missed the cache
  std::uint64_t all_visible   = 0; // pages VACUUM marked PD_ALL_VISIBLE
};

class HeapScanner {
public:
  HeapScanner(const Scenario& scenario, BufferManager& bufmgr, Clog& clog, Xlog& xlog);

  /// ExecutorRun of `select sum(1) from table` with the backend's snapshot.
  HeapPassCounts ExecSeqScanSum(BackendIo& io, ScanTable& table);
  /// lazy_scan_heap of VACUUM (no dead tuples: nothing to prune or index-vacuum).
  HeapPassCounts lazy_scan_heap(BackendIo& io, ScanTable& table);

  /// HeapTupleSatisfiesMVCC for one tuple of the page in buf_id.
  bool HeapTupleSatisfiesMVCC(BackendIo& io, ScanTable& table, int buf_id, XminHint at_page_start,
                              HeapPassCounts& counts);
  /// SetHintBits: true if the hint was set (and the buffer marked dirty for it).
  bool SetHintBits(BackendIo& io, ScanTable& table, int buf_id, XminHint hint, TransactionId xid);

private:
  /// heap_beginscan's strategy: a ring only for tables larger than a quarter of shared_buffers.
  BufferAccessStrategy scan_strategy(const ScanTable& table) const;
  bool xmin_committed(BackendIo& io, TransactionId xid, XidAsker asker, HeapPassCounts& counts);

  const Scenario& scenario_;
  const Costs& costs_;
  const ScanCosts& scan_costs_;
  BufferManager& bufmgr_;
  Clog& clog_;
  Xlog& xlog_;
};

} // namespace pg
