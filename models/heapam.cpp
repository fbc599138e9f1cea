/* Fetching, updating and inserting heap tuples (heapam.c, heapam_handler.c, nodeModifyTable.c's
 * EvalPlanQual path; PostgreSQL 15), with the WAL records they write. */
#include "models/heapam.hpp"

#include "models/transam.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pg {

namespace {
// WAL record layout sizes from xlogrecord.h and heapam_xlog.h / nbtxlog.h (PostgreSQL 15).
constexpr double SizeOfXLogRecord           = 24;
constexpr double SizeOfXLogRecordDataHeader = 2;
constexpr double SizeOfBlockReference       = 4 + 12 + 4; // block header, RelFileNode, BlockNumber
constexpr double SizeOfBlockImageHeader     = 5;
constexpr double SizeOfHeapUpdate           = 14;
constexpr double SizeOfHeapHeader           = 5;
constexpr double SizeOfHeapInsert           = 3;
constexpr double SizeOfHeapLock             = 8; // xl_heap_lock: offnum, xmax, infobits_set, flags
constexpr double SizeOfBtreeInsert          = 2;
constexpr double SizeOfIndexTupleInt4       = 16;
// A same-page update logs only the bytes that changed between the old and new tuple (prefix and
// suffix compression): for pgbench's balance updates, one int4 plus the prefix length.
constexpr double SameBlockUpdateData = 8;
// B-tree leaf pages of an int4 primary key at the default leaf fillfactor of 90.
constexpr std::uint32_t IndexEntriesPerLeaf = 366;
constexpr double IndexLeafImage             = BLCKSZ * 0.9;

double record_header(int blocks)
{
  return SizeOfXLogRecord + SizeOfXLogRecordDataHeader + SizeOfBlockReference * blocks;
}
} // namespace

void version_gone(const HeapRow& row, std::uint32_t seq)
{
  throw std::logic_error("tuple version " + std::to_string(seq) + " is gone (versions " +
                         std::to_string(row.first_seq) + " to " + std::to_string(newest_seq(row)) + ")");
}

Heapam::Heapam(const Scenario& scenario, const WaitEvents& events, Xlog& xlog, Clog& clog, ProcArray& procarray,
               LockManager& locks)
    : scenario_(scenario), costs_(scenario.costs), ev_(events), xlog_(xlog), clog_(clog), procarray_(procarray),
      locks_(locks)
{
}

XLogRecPtr Heapam::log_heap_change(Backend& me, double main_bytes, HeapPage* p1, HeapPage* p2)
{
  const int blocks = p2 != nullptr ? 2 : 1;
  XLogRecordData rec{record_header(blocks) + main_bytes, 0};
  for (HeapPage* p : {p1, p2}) {
    if (p == nullptr || !needs_image(*p)) continue;
    // The image leaves out the page's hole (the free space between line pointers and tuples).
    rec.size += SizeOfBlockImageHeader + BLCKSZ - p->free_bytes;
    rec.fpi++;
  }
  const XLogRecPtr lsn = xlog_.XLogInsert(me, rec);
  p1->lsn              = lsn;
  if (p2 != nullptr) p2->lsn = lsn;
  return lsn;
}

XLogRecPtr Heapam::log_index_insert(Backend& me, Relation& rel, std::uint32_t key)
{
  me.proc.work(costs_.index_insert);
  if (!rel.permanent()) return InvalidXLogRecPtr;
  const std::uint32_t leaf = key / IndexEntriesPerLeaf;
  XLogRecordData rec{record_header(1) + SizeOfBtreeInsert + SizeOfIndexTupleInt4, 0};
  if (xlog_.needs_image(rel.index_leaf_lsn(leaf))) {
    rec.size += SizeOfBlockImageHeader + IndexLeafImage;
    rec.fpi++;
  }
  // No reference into the relation is kept across XLogInsert: others may grow it meanwhile.
  const XLogRecPtr lsn     = xlog_.XLogInsert(me, rec);
  rel.index_leaf_lsn(leaf) = lsn;
  return lsn;
}

// An index scan for the row: each index entry leads to one HOT chain (the versions of the row
// on one page); the heap_hot_search_buffer walk of a chain stops at the version visible to our
// snapshot. A chain found dead to everybody gets its index entry killed (kill_prior_tuple), so
// later scans skip it. Each heap page the scan reads is offered to heap_page_prune_opt first.
std::int64_t Heapam::index_fetch(Backend& me, Relation& rel, std::uint32_t rowid, HeapPage** scan_pin)
{
  if (scan_pin != nullptr) *scan_pin = nullptr;
  me.proc.work(costs_.index_descent);
  HeapRow& row      = rel.row(rowid);
  std::uint32_t seq = std::max(row.first_seq, row.killed_before);
  while (seq <= newest_seq(row)) {
    const std::uint32_t block = version_at(row, seq).block;
    heap_page_prune_opt(me, rel, block);
    seq = std::max(seq, row.first_seq);
    if (version_at(row, seq).block != block) continue; // the chain here was pruned away
    bool all_dead;
    const std::int64_t visible = heap_hot_search_buffer(me, rel, row, block, &seq, &all_dead, scan_pin != nullptr);
    if (visible >= 0) {
      if (scan_pin != nullptr) *scan_pin = &rel.page(block);
      return visible;
    }
    if (all_dead) row.killed_before = std::max(row.killed_before, seq);
  }
  return -1;
}

// Walks the chain of row on block from *seq, returning the visible version or -1; *seq ends
// past the chain, and *all_dead says whether every member is surely dead to everybody
// (HeapTupleIsSurelyDead: judged from hint bits alone).
std::int64_t Heapam::heap_hot_search_buffer(Backend& me, Relation& rel, HeapRow& row, std::uint32_t block,
                                            std::uint32_t* seq, bool* all_dead, bool keep_pin)
{
  HeapPage& page = rel.page(block);
  PinBuffer(me, page);
  page.content_lock.acquire(me.proc, sim::LWLockMode::Shared);
  std::int64_t visible = -1;
  *all_dead            = true;
  // Versions before the row's first are pruned ones whose slots were compacted away meanwhile.
  for (; (*seq = std::max(*seq, row.first_seq)) <= newest_seq(row) && version_at(row, *seq).block == block; ++*seq) {
    if (version_at(row, *seq).pruned) continue; // a redirect: no tuple to look at
    me.proc.work(costs_.heap_fetch + costs_.visibility_check);
    rel.stats().versions_visited++;
    if (HeapTupleSatisfiesMVCC(me, rel, page, row, *seq)) {
      visible   = *seq;
      *all_dead = false;
      break;
    }
    const TupleVersion& v = version_at(row, *seq);
    *all_dead =
        *all_dead && (v.infomask & HEAP_XMIN_COMMITTED) && (v.infomask & HEAP_XMAX_COMMITTED) && v.xmax < me.GlobalXmin;
  }
  page.content_lock.release(me.proc);
  if (!keep_pin || visible < 0) UnpinBuffer(me, page);
  return visible;
}

// Is the transaction that updated version seq (its xmax) still running? (HeapTupleSatisfiesUpdate)
bool Heapam::updater_in_progress(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq)
{
  TupleVersion& v = version_at(row, seq);
  if (v.infomask & HEAP_XMAX_COMMITTED) return false;
  const TransactionId xmax = v.xmax;
  if (procarray_.TransactionIdIsInProgress(me, xmax)) return true;
  if (TransactionIdDidCommit(me, clog_, xmax))
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_COMMITTED, xmax);
  return false;
}

// heap_acquire_tuplock, then XactLockTableWait: the first waiter for a row waits on the
// updater's transaction (Lock:transactionid), later ones queue for the tuple lock (Lock:tuple).
void Heapam::wait_for_updater(Backend& me, HeapRow& row, TransactionId updater, bool* have_tuple_lock)
{
  if (!*have_tuple_lock) {
    locks_.LockTuple(me, row.tuple_lock);
    *have_tuple_lock = true;
  }
  if (Backend* holder = procarray_.holder_of(updater)) locks_.XactLockTableWait(me, *holder, updater);
}

// RelationGetBufferForTuple's slow path: a new page, added under the relation extension lock.
std::uint32_t Heapam::target_page(Backend& me, Relation& rel, double need)
{
  bool extended             = false;
  const std::uint32_t block = rel.target_block(need, &extended);
  if (extended) {
    rel.extension_lock().acquire(me.proc, sim::LWLockMode::Exclusive);
    me.proc.work(costs_.lock_manager);
    me.proc.syscall(scenario_.hardware.os.pwrite + scenario_.hardware.os.pwrite_per_kb * BLCKSZ / 1024.0,
                    ev_.IoDataFileWrite);
    rel.extension_lock().release(me.proc);
    rel.page(block).lsn = InvalidXLogRecPtr;
  }
  return block;
}

void Heapam::update(Backend& me, Relation& rel, std::uint32_t rowid)
{
  if (me.xid == InvalidTransactionId) procarray_.GetNewTransactionId(me);
  // The index scan keeps its pin on the row's page until ExecModifyTable asks it for the next
  // row, after heap_update (and any wait in it) is over.
  HeapPage* scan_page = nullptr;
  std::int64_t target = index_fetch(me, rel, rowid, &scan_page);
  me.proc.work(costs_.update_row);
  bool have_tuple_lock = false;
  for (;;) {
    if (target < 0) target = newest_seq(rel.row(rowid)); // nothing visible: the row's old versions are gone
    const auto seq            = static_cast<std::uint32_t>(target);
    const std::uint32_t block = version_at(rel.row(rowid), seq).block;
    HeapPage& page            = rel.page(block);
    ReadBuffer(me, page, scan_page);
    page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    if (seq != newest_seq(rel.row(rowid))) {
      // HeapTupleSatisfiesUpdate: somebody updated the row after our snapshot was taken.
      const TransactionId updater = version_at(rel.row(rowid), seq).xmax;
      const bool running          = updater_in_progress(me, rel, page, rel.row(rowid), seq);
      page.content_lock.release(me.proc);
      // heap_update gives up the content lock to wait, but keeps its pin until it returns
      // TM_Updated: while backends queue for a row, its page cannot be pruned.
      if (running) wait_for_updater(me, rel.row(rowid), updater, &have_tuple_lock);
      ReleaseBuffer(me, page, scan_page);
      if (!running) {
        // READ COMMITTED: EvalPlanQual follows the update chain and re-checks the next version.
        me.proc.work(costs_.heap_fetch + costs_.visibility_check + costs_.select_row);
        target = seq + 1;
        if (static_cast<std::uint32_t>(target) == newest_seq(rel.row(rowid)))
          heap_lock_tuple(me, rel, rel.row(rowid), static_cast<std::uint32_t>(target), scan_page);
      }
      continue;
    }
    if (!place_new_version(me, rel, rowid, seq, page, block, scan_page))
      continue; // lost the race for the row while taking a second page lock
    break;
  }
  if (have_tuple_lock) locks_.UnlockTuple(me, rel.row(rowid).tuple_lock);
  if (scan_page != nullptr) UnpinBuffer(me, *scan_page);
}

// ExecUpdate's table_tuple_lock (EvalPlanQualFetch before PostgreSQL 12) on the row's newest
// version before EvalPlanQual rechecks it: heap_lock_tuple WAL-logs the lock (XLOG_HEAP_LOCK). The
// lock-only xmax it leaves is not modelled: the update that follows replaces it at once.
void Heapam::heap_lock_tuple(Backend& me, Relation& rel, HeapRow& row, std::uint32_t seq, const HeapPage* scan_page)
{
  HeapPage& page = rel.page(version_at(row, seq).block);
  ReadBuffer(me, page, scan_page);
  page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
  if (seq == newest_seq(row) && rel.permanent()) {
    log_heap_change(me, SizeOfHeapLock, &page);
    MarkBufferDirty(page);
  }
  page.content_lock.release(me.proc);
  ReleaseBuffer(me, page, scan_page);
  rel.stats().tuple_locks++;
}

// heap_update proper, with page holding version seq (the newest) locked exclusively: the new
// version goes on the same page when it fits (a HOT update), else on the relation's target page,
// whose lock is taken in block order as heap_update does. Returns false, with every lock and pin
// released, when the row changed while the old page's lock was given up.
bool Heapam::place_new_version(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq, HeapPage& page,
                               std::uint32_t block, const HeapPage* scan_page)
{
  const double need      = rel.tuple_bytes() + ItemIdSize;
  HeapPage* newpage      = &page;
  std::uint32_t newblock = block;
  if (page.free_bytes < need) {
    newblock = target_page(me, rel, need);
    newpage  = &rel.page(newblock);
    ReadBuffer(me, *newpage, scan_page);
    if (newblock < block) {
      page.content_lock.release(me.proc);
      newpage->content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
      page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
      if (seq != newest_seq(rel.row(rowid)) || newpage->free_bytes < need) {
        newpage->content_lock.release(me.proc);
        ReleaseBuffer(me, *newpage, scan_page);
        page.content_lock.release(me.proc);
        ReleaseBuffer(me, page, scan_page);
        return false;
      }
    } else {
      newpage->content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    }
  }
  HeapRow& row      = rel.row(rowid);
  TupleVersion& old = version_at(row, seq);
  old.xmax          = me.xid;
  old.infomask      = static_cast<std::uint8_t>(old.infomask & ~(HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED));
  TupleVersion fresh;
  fresh.xmin     = me.xid;
  fresh.block    = newblock;
  fresh.infomask = HEAP_XMAX_INVALID;
  row.versions.push_back(fresh);
  newpage->free_bytes -= need;
  const bool hot = newpage == &page;
  auto& rows     = newpage->rows;
  if (!hot && std::find(rows.begin(), rows.end(), rowid) == rows.end()) rows.push_back(rowid);
  if (page.prune_xid == InvalidTransactionId || me.xid < page.prune_xid) page.prune_xid = me.xid; // PageSetPrunable
  if (rel.permanent()) {
    const double data = hot ? SameBlockUpdateData : rel.tuple_bytes() - SizeofHeapTupleHeader;
    log_heap_change(me, SizeOfHeapUpdate + SizeOfHeapHeader + data, &page, hot ? nullptr : newpage);
  }
  MarkBufferDirty(page);
  MarkBufferDirty(*newpage);
  if (!hot) {
    newpage->content_lock.release(me.proc);
    ReleaseBuffer(me, *newpage, scan_page);
  }
  page.content_lock.release(me.proc);
  ReleaseBuffer(me, page, scan_page);
  (hot ? rel.stats().hot_updates : rel.stats().cold_updates)++;
  if (!hot) log_index_insert(me, rel, rowid);
  return true;
}

void Heapam::insert(Backend& me, Relation& rel, int indexes)
{
  if (me.xid == InvalidTransactionId) procarray_.GetNewTransactionId(me);
  me.proc.work(costs_.insert_row);
  const double need         = rel.tuple_bytes() + ItemIdSize;
  const std::uint32_t block = target_page(me, rel, need);
  HeapPage& page            = rel.page(block);
  // A record that initialises a fresh page (XLOG_HEAP_INIT_PAGE) needs no image of it.
  const bool fresh_page = page.lsn == InvalidXLogRecPtr && page.rows.empty() && page.free_bytes >= BLCKSZ - 200;
  PinBuffer(me, page);
  page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
  page.free_bytes -= need;
  if (rel.permanent()) {
    const double data = rel.tuple_bytes() - SizeofHeapTupleHeader;
    if (fresh_page)
      page.lsn = xlog_.XLogInsert(me, XLogRecordData{record_header(1) + SizeOfHeapInsert + SizeOfHeapHeader + data, 0});
    else
      log_heap_change(me, SizeOfHeapInsert + SizeOfHeapHeader + data, &page);
  }
  MarkBufferDirty(page);
  page.content_lock.release(me.proc);
  UnpinBuffer(me, page);
  rel.stats().inserts++;
  for (int i = 0; i < indexes; i++) log_index_insert(me, rel, static_cast<std::uint32_t>(rel.stats().inserts));
}

} // namespace pg
