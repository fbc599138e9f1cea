/* Fetching, updating and inserting heap tuples (heapam.c, heapam_handler.c, nodeModifyTable.c's
 * EvalPlanQual path; PostgreSQL 15), with the WAL records they write. */
#include "models/heapam.hpp"
#include "models/shared_buffers.hpp"

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
constexpr double IndexLeafImage      = BLCKSZ * 0.9;

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
  const std::uint32_t leaf = key / IndexEntriesPerLeaf;
  visit_leaf(me, rel, leaf);
  if (!rel.permanent()) return InvalidXLogRecPtr;
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
  visit_leaf(me, rel, rowid / IndexEntriesPerLeaf);
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

// heap_acquire_tuplock, then XactLockTableWait: the first waiter for a row waits on the
// transaction in its xmax, updater or locker (Lock:transactionid), later ones queue for the tuple
// lock (Lock:tuple).
void Heapam::wait_for_xmax(Backend& me, HeapRow& row, TransactionId xmax, bool* have_tuple_lock)
{
  if (!*have_tuple_lock) {
    locks_.LockTuple(me, row.tuple_lock);
    *have_tuple_lock = true;
  }
  if (Backend* holder = procarray_.holder_of(xmax)) locks_.XactLockTableWait(me, *holder, xmax);
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
    if (buffers_ != nullptr) buffers_->extend(me, rel, block);
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
  if (target < 0) target = newest_seq(rel.row(rowid)); // nothing visible: the row's old versions are gone
  auto seq = static_cast<std::uint32_t>(target);
  while (!heap_update(me, rel, rowid, seq, scan_page)) {
    // TM_Updated, in READ COMMITTED: ExecUpdate locks the row's newest version
    // (table_tuple_lock), EvalPlanQual rechecks it, and the update is tried again on it.
    seq = heap_lock_tuple(me, rel, rowid, seq + 1, scan_page);
    me.proc.work(costs_.select_row);
  }
  if (scan_page != nullptr) UnpinBuffer(me, *scan_page);
}

// heap_update (PostgreSQL 15) of version seq: false for TM_Updated. It gives up the content lock
// to wait for a running updater or locker, but keeps its pin until it returns: while backends
// queue for a row, its page cannot be pruned.
bool Heapam::heap_update(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq, const HeapPage* scan_page)
{
  bool have_tuple_lock = false;
  TM_Result result     = TM_Result::BeingModified;
  while (result != TM_Result::Updated) {
    const std::uint32_t block = version_at(rel.row(rowid), seq).block;
    HeapPage& page            = rel.page(block);
    ReadBuffer(me, page, scan_page);
    page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    result = HeapTupleSatisfiesUpdate(me, rel, page, rel.row(rowid), seq);
    if (result == TM_Result::Ok) {
      if (place_new_version(me, rel, rowid, seq, page, block, scan_page)) break;
      continue; // the page found for the new version filled up meanwhile
    }
    const TransactionId xmax = version_at(rel.row(rowid), seq).xmax;
    page.content_lock.release(me.proc);
    if (result == TM_Result::BeingModified) wait_for_xmax(me, rel.row(rowid), xmax, &have_tuple_lock);
    ReleaseBuffer(me, page, scan_page);
  }
  if (have_tuple_lock) locks_.UnlockTuple(me, rel.row(rowid).tuple_lock);
  return result != TM_Result::Updated;
}

// heap_lock_tuple with TUPLE_LOCK_FLAG_FIND_LAST_VERSION, as ExecUpdate's table_tuple_lock
// (EvalPlanQualFetch before PostgreSQL 12) calls it: follows the update chain from version seq,
// waiting for running updaters and lockers, and locks the newest version. Returns its seq.
std::uint32_t Heapam::heap_lock_tuple(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq,
                                      const HeapPage* scan_page)
{
  bool have_tuple_lock = false;
  for (;;) {
    me.proc.work(costs_.heap_fetch + costs_.visibility_check);
    HeapPage& page = rel.page(version_at(rel.row(rowid), seq).block);
    ReadBuffer(me, page, scan_page);
    page.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    const TM_Result result = HeapTupleSatisfiesUpdate(me, rel, page, rel.row(rowid), seq);
    if (result == TM_Result::Ok) {
      lock_version(me, rel, rel.row(rowid), seq, page);
      page.content_lock.release(me.proc);
      ReleaseBuffer(me, page, scan_page);
      break;
    }
    const TransactionId xmax = version_at(rel.row(rowid), seq).xmax;
    page.content_lock.release(me.proc);
    if (result == TM_Result::BeingModified) wait_for_xmax(me, rel.row(rowid), xmax, &have_tuple_lock);
    ReleaseBuffer(me, page, scan_page);
    if (result == TM_Result::Updated) seq++; // on to the version its t_ctid leads to
  }
  if (have_tuple_lock) locks_.UnlockTuple(me, rel.row(rowid).tuple_lock);
  rel.stats().tuple_locks++;
  return seq;
}

// Marks version seq, on page (locked exclusively), locked by me: a lock-only xmax, WAL-logged as
// XLOG_HEAP_LOCK so that no xid reaches disk unlogged.
void Heapam::lock_version(Backend& me, Relation& rel, HeapRow& row, std::uint32_t seq, HeapPage& page)
{
  TupleVersion& v = version_at(row, seq);
  v.xmax          = me.xid;
  v.infomask =
      static_cast<std::uint8_t>((v.infomask & ~(HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED)) | HEAP_XMAX_LOCK_ONLY);
  MarkBufferDirty(page);
  if (rel.permanent()) log_heap_change(me, SizeOfHeapLock, &page);
}

// heap_update proper, with page holding version seq (the newest) locked exclusively: the new
// version goes on the same page when it fits (a HOT update), else on the relation's target page,
// whose lock is taken in block order as heap_update does. Returns false, with every lock and pin
// released, when that page filled up before its lock was taken.
bool Heapam::place_new_version(Backend& me, Relation& rel, std::uint32_t rowid, std::uint32_t seq, HeapPage& page,
                               std::uint32_t block, const HeapPage* scan_page)
{
  const double need      = rel.tuple_bytes() + ItemIdSize;
  HeapPage* newpage      = &page;
  std::uint32_t newblock = block;
  if (page.free_bytes < need) {
    // The old page's lock is given up while another page is found, the old version marked locked
    // first so that nobody else updates it meanwhile.
    lock_version(me, rel, rel.row(rowid), seq, page);
    page.content_lock.release(me.proc);
    newblock = target_page(me, rel, need);
    newpage  = &rel.page(newblock);
    ReadBuffer(me, *newpage, scan_page);
    // RelationGetBufferForTuple locks the lower-numbered page first.
    HeapPage& first = newblock < block ? *newpage : page;
    first.content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    if (newpage != &page) (&first == &page ? *newpage : page).content_lock.acquire(me.proc, sim::LWLockMode::Exclusive);
    if (newpage->free_bytes < need) {
      if (newpage != &page) {
        newpage->content_lock.release(me.proc);
        ReleaseBuffer(me, *newpage, scan_page);
      }
      page.content_lock.release(me.proc);
      ReleaseBuffer(me, page, scan_page);
      return false;
    }
  }
  HeapRow& row      = rel.row(rowid);
  TupleVersion& old = version_at(row, seq);
  old.xmax          = me.xid;
  old.infomask =
      static_cast<std::uint8_t>(old.infomask & ~(HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED | HEAP_XMAX_LOCK_ONLY));
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
