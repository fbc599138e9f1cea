/* The counting sequential scan and lazy VACUUM (heapam.c, tqual.c, vacuumlazy.c of 9.1).
 * See seqscan.hpp. */
#include "models/seqscan.hpp"

#include "models/transam.hpp"

#include <algorithm>
#include <stdexcept>

namespace pg {

int ScanTable::tuples_on(std::uint32_t block) const
{
  const auto first = static_cast<std::uint64_t>(block) * static_cast<std::uint64_t>(rows_per_page);
  if (first >= rows) return 0;
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(rows_per_page), rows - first));
}

HeapScanner::HeapScanner(const Scenario& scenario, BufferManager& bufmgr, Clog& clog, Xlog& xlog)
    : scenario_(scenario), costs_(scenario.costs), scan_costs_(scenario.scan.costs), bufmgr_(bufmgr), clog_(clog),
      xlog_(xlog)
{
}

BufferAccessStrategy HeapScanner::scan_strategy(const ScanTable& table) const
{
  const int NBuffers = bufmgr_.pool().NBuffers();
  const bool large   = table.rel.nblocks() > static_cast<std::uint32_t>(NBuffers / 4);
  return GetAccessStrategy(large ? BufferAccessStrategyType::BulkRead : BufferAccessStrategyType::Normal, NBuffers);
}

bool HeapScanner::xmin_committed(BackendIo& io, TransactionId xid, XidAsker asker, HeapPassCounts& counts)
{
  const std::uint64_t misses = clog_.stats().fetches - clog_.stats().cache_hits;
  const bool committed       = TransactionIdDidCommit(io.me, clog_, xid, asker);
  counts.clog_lookups += clog_.stats().fetches - clog_.stats().cache_hits - misses;
  return committed;
}

// The rule of heapam_visibility.cpp's SetHintBits, applied to a page of this table.
bool HeapScanner::SetHintBits(BackendIo& io, ScanTable& table, int buf_id, XminHint hint, TransactionId xid)
{
  PageImage& page        = bufmgr_.BufferGetPage(buf_id);
  const HintBitRule rule = scenario_.policies.hint_bits;
  if (xid != InvalidTransactionId && rule != HintBitRule::Always && table.permanent) {
    const XLogRecPtr commitLSN = TransactionIdGetCommitLSN(io.me, clog_, xid);
    if (xlog_.XLogNeedsFlush(io.me, commitLSN) && (rule == HintBitRule::Flushed || page.lsn < commitLSN)) return false;
    if (scenario_.run.check_invariants && commitLSN > xlog_.flushed_lsn() &&
        (rule == HintBitRule::Flushed || page.lsn < commitLSN))
      throw std::logic_error("hint bit set on " + table.rel.name() + " while commit " + std::to_string(commitLSN) +
                             " is unflushed and the page LSN is behind it");
  }
  io.me.proc.work(costs_.hint_bit);
  page.xmin_hint = hint;
  bufmgr_.MarkBufferDirtyHint(io, buf_id);
  return true;
}

bool HeapScanner::HeapTupleSatisfiesMVCC(BackendIo& io, ScanTable& table, int buf_id, XminHint at_page_start,
                                         HeapPassCounts& counts)
{
  io.me.proc.work(costs_.visibility_check);
  if (at_page_start == XminHint::Committed) return true; // and HEAP_XMAX_INVALID, set at insertion
  if (at_page_start == XminHint::Invalid) return false;
  io.me.proc.work(scan_costs_.visibility_unhinted);
  if (io.me.snapshot.contains(table.xmin)) return false; // XidInMVCCSnapshot: still running for us
  const bool committed = xmin_committed(io, table.xmin, XidAsker::SatisfiesMVCC, counts);
  const bool set       = committed ? SetHintBits(io, table, buf_id, XminHint::Committed, table.xmin)
                                   : SetHintBits(io, table, buf_id, XminHint::Invalid, InvalidTransactionId);
  (set ? counts.hints_set : counts.hints_refused)++;
  return committed;
}

HeapPassCounts HeapScanner::ExecSeqScanSum(BackendIo& io, ScanTable& table)
{
  sim::Proc& proc = io.me.proc;
  proc.work(costs_.protocol_simple + costs_.snapshot);
  BufferAccessStrategy strategy = scan_strategy(table);
  HeapPassCounts counts;
  // synchronize_seqscans: a scan alone reports its position back at block 0 when it ends, so
  // every scan of the series starts there.
  for (std::uint32_t block = 0; block < table.rel.nblocks(); block++) {
    const int buf_id = bufmgr_.ReadBufferExtended(io, table.rel, block, &strategy);
    proc.work(scan_costs_.heapgetpage);
    const XminHint at_start = bufmgr_.BufferGetPage(buf_id).xmin_hint;
    const int ntuples       = table.tuples_on(block);
    for (int t = 0; t < ntuples; t++)
      if (HeapTupleSatisfiesMVCC(io, table, buf_id, at_start, counts)) counts.visible++;
    bufmgr_.ReleaseBuffer(buf_id);
    counts.tuples += static_cast<std::uint64_t>(ntuples);
    proc.work(scan_costs_.seqscan_tuple * ntuples);
  }
  return counts;
}

HeapPassCounts HeapScanner::lazy_scan_heap(BackendIo& io, ScanTable& table)
{
  sim::Proc& proc = io.me.proc;
  proc.work(costs_.protocol_simple + costs_.snapshot);
  BufferAccessStrategy strategy = GetAccessStrategy(BufferAccessStrategyType::Vacuum, bufmgr_.pool().NBuffers());
  // OldestXmin: with nothing else running, every committed row is visible to everyone.
  const TransactionId OldestXmin = io.me.snapshot.xmin;
  HeapPassCounts counts;
  for (std::uint32_t block = 0; block < table.rel.nblocks(); block++) {
    const int buf_id = bufmgr_.ReadBufferExtended(io, table.rel, block, &strategy);
    proc.work(scan_costs_.vacuum_page);
    const XminHint at_start = bufmgr_.BufferGetPage(buf_id).xmin_hint;
    const int ntuples       = table.tuples_on(block);
    bool all_visible        = table.xmin < OldestXmin;
    for (int t = 0; t < ntuples; t++) {
      proc.work(scan_costs_.vacuum_tuple);
      if (at_start != XminHint::None) {
        all_visible = all_visible && at_start == XminHint::Committed;
        continue;
      }
      // HeapTupleSatisfiesVacuum: asks the CLOG (the xid is not running) and sets the hint.
      const bool committed = xmin_committed(io, table.xmin, XidAsker::SatisfiesVacuum, counts);
      const bool set       = committed ? SetHintBits(io, table, buf_id, XminHint::Committed, table.xmin)
                                       : SetHintBits(io, table, buf_id, XminHint::Invalid, InvalidTransactionId);
      (set ? counts.hints_set : counts.hints_refused)++;
      all_visible = all_visible && committed;
    }
    PageImage& page = bufmgr_.BufferGetPage(buf_id);
    if (ntuples > 0 && all_visible && !page.all_visible) {
      page.all_visible = true; // PageSetAllVisible
      bufmgr_.MarkBufferDirty(buf_id);
      counts.all_visible++;
    }
    bufmgr_.ReleaseBuffer(buf_id);
    counts.tuples += static_cast<std::uint64_t>(ntuples);
  }
  return counts;
}

} // namespace pg
