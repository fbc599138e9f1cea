/* Opportunistic page pruning, following pruneheap.c of PostgreSQL 15 (heap_page_prune_opt,
 * heap_page_prune): when a page read through an index is nearly full and holds dead versions,
 * a backend that gets the cleanup lock (exclusive content lock, and no other pin) removes the
 * versions dead to everybody and WAL-logs it. Without the cleanup lock the page is left alone,
 * which is how hot pages grow long version chains under concurrency. */
#include "models/heapam.hpp"

#include <algorithm>

namespace pg {

namespace {
// The first version of row from seq on that lies on block and was not pruned, or one past the
// newest. A tight walk of the version array: a hot row's chain spans many pages, and most of its
// versions are elsewhere. Nothing here waits, so the array cannot change during the walk.
std::uint32_t next_on_page(HeapRow& row, std::uint32_t seq, std::uint32_t block)
{
  const std::uint32_t end = newest_seq(row) + 1;
  if (seq >= end) return seq;
  const TupleVersion* v = &version_at(row, seq);
  for (; seq < end; ++seq, ++v)
    if (v->block == block && !v->pruned) break;
  return seq;
}
} // namespace

void Heapam::heap_page_prune_opt(Backend& me, Relation& rel, std::uint32_t block)
{
  HeapPage& page = rel.page(block);
  // PageIsPrunable: some deleter is old enough to be dead to everybody.
  if (page.prune_xid == InvalidTransactionId || page.prune_xid >= me.GlobalXmin) return;
  if (page.free_bytes >= rel.prune_minfree()) return;
  PinBuffer(me, page);
  // ConditionalLockBufferForCleanup: never wait; give up if anybody else has the page pinned.
  if (!page.content_lock.conditional_acquire(me.proc, sim::LWLockMode::Exclusive)) {
    rel.stats().prune_skipped++;
    UnpinBuffer(me, page);
    return;
  }
  if (page.pins > 1) {
    rel.stats().prune_skipped++;
  } else if (heap_page_prune(me, rel, page, block)) {
    rel.stats().prunes++;
  }
  page.content_lock.release(me.proc);
  UnpinBuffer(me, page);
}

// Each row's versions on this page form one HOT chain. As heap_page_prune does (PostgreSQL 14+
// computes HeapTupleSatisfiesVacuum for every tuple on the page first; 9.x's heap_prune_chain
// walks every chain member), every version on the page is examined, not only the removable
// ones: an unhinted version costs its CLOG lookups, and its hint bits, on every pruning pass.
// The members dead to everybody come first and are removed (the chain's line pointer then
// redirects past them). Versions elsewhere are other pages' business.
bool Heapam::heap_page_prune(Backend& me, Relation& rel, HeapPage& page, std::uint32_t block)
{
  int removed                 = 0;
  TransactionId new_prune_xid = InvalidTransactionId;
  // A copy: page.rows may grow while we wait for a CLOG lookup.
  const std::vector<std::uint32_t> rows(page.rows);
  std::vector<std::uint32_t> keep;
  for (std::uint32_t rowid : rows) {
    HeapRow& row  = rel.row(rowid);
    bool removing = true; // still in the chain's dead prefix
    for (std::uint32_t seq = next_on_page(row, row.first_seq, block); seq <= newest_seq(row);
         seq               = next_on_page(row, seq + 1, block)) {
      me.proc.work(costs_.prune_per_tuple);
      const bool removable = HeapTupleIsRemovable(me, rel, page, row, seq) && seq < newest_seq(row);
      if (removing && removable) {
        version_at(row, seq).pruned = true;
        // The line pointer of a removed heap-only tuple is reusable, like its space.
        page.free_bytes += rel.tuple_bytes() + ItemIdSize;
        removed++;
        continue;
      }
      if (removing) {
        // pd_prune_xid: the oldest deleter among the versions left behind.
        const TupleVersion& v    = version_at(row, seq);
        const TransactionId xmax = v.infomask & HEAP_XMAX_LOCK_ONLY ? InvalidTransactionId : v.xmax;
        if (xmax != InvalidTransactionId && (new_prune_xid == InvalidTransactionId || xmax < new_prune_xid))
          new_prune_xid = xmax;
      }
      removing = false;
    }
    // The pruned front goes in one erase, keeping the newest version.
    std::size_t gone = 0;
    while (gone + 1 < row.versions.size() && row.versions[gone].pruned) gone++;
    row.versions.erase(row.versions.begin(), row.versions.begin() + static_cast<std::ptrdiff_t>(gone));
    row.first_seq += static_cast<std::uint32_t>(gone);
    const bool on_page = std::any_of(row.versions.begin(), row.versions.end(),
                                     [block](const TupleVersion& v) { return v.block == block && !v.pruned; });
    if (on_page) keep.push_back(rowid);
  }
  // Rows first touched meanwhile (their home is this page) joined the list after our copy.
  keep.insert(keep.end(), page.rows.begin() + static_cast<std::ptrdiff_t>(rows.size()), page.rows.end());
  page.rows.swap(keep);
  page.prune_xid = new_prune_xid;
  if (removed == 0) return false;
  rel.stats().pruned_tuples += static_cast<std::uint64_t>(removed);
  // XLOG_HEAP2_PRUNE: the offsets of the removed and redirected line pointers.
  if (rel.permanent()) log_heap_change(me, 6 + 2.0 * removed, &page);
  MarkBufferDirty(page);
  return true;
}

} // namespace pg
