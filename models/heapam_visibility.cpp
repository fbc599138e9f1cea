/* Tuple visibility and hint bits, following heapam_visibility.c of PostgreSQL 15
 * (HeapTupleSatisfiesMVCC, HeapTupleSatisfiesVacuum, SetHintBits). Which hint bits may be set
 * for an asynchronously committed transaction is the HintBitRule policy:
 *  - flushed: only once its commit record is flushed (XLogNeedsFlush on the commit LSN);
 *  - flushed_or_page_lsn: or when the page's LSN is already at or past the commit LSN, as the
 *    page cannot reach disk before that WAL anyway. This is commit db76b1efbbab24 ("Allow
 *    SetHintBits() to succeed if the buffer's LSN is new enough", Andres Freund, proposed in
 *    2016 and measured in the 2017 thread). Before that commit only the flushed rule existed,
 *    from 8.3 on (which introduced asynchronous commit);
 *  - always: without the test (the 2011 thread's "test whacked out" experiment). */
#include "models/heapam.hpp"

#include "models/transam.hpp"

#include <stdexcept>

namespace pg {

void Heapam::SetHintBits(Backend& me, Relation& rel, HeapPage& page, TupleVersion& tuple, std::uint8_t infomask,
                         TransactionId xid)
{
  const HintBitRule rule = scenario_.policies.hint_bits;
  if (xid != InvalidTransactionId && rule != HintBitRule::Always) {
    const XLogRecPtr commitLSN = TransactionIdGetCommitLSN(me, clog_, xid);
    // BufferIsPermanent reads the buffer header's state word, which every pin rewrites.
    page.header.read(me.proc);
    if (rel.permanent() && xlog_.XLogNeedsFlush(me, commitLSN) &&
        (rule == HintBitRule::Flushed || BufferGetLSNAtomic(me, page) < commitLSN)) {
      hint_stats_.refused++;
      return;
    }
    if (scenario_.run.check_invariants && rel.permanent() && commitLSN > xlog_.flushed_lsn() &&
        (rule == HintBitRule::Flushed || page.lsn < commitLSN))
      throw std::logic_error("hint bit set on " + rel.name() + " while commit " + std::to_string(commitLSN) +
                             " is unflushed and the page LSN is behind it");
  }
  tuple.infomask |= infomask;
  me.proc.work(costs_.hint_bit);
  hint_stats_.set++;
  MarkBufferDirtyHint(me, rel, page);
}

// Whether an unhinted xmin or xmax may still be running, asked before pg_xact is. PostgreSQL 9.6
// asks the snapshot (commit 8a7d0701814, 2015); until 9.5 TransactionIdIsInProgress scanned the
// ProcArray under ProcArrayLock, and a transaction that ended after the snapshot was taken then
// goes on to the pg_xact lookup and gets its hint bit.
bool Heapam::XidMayBeRunning(Backend& me, TransactionId xid)
{
  if (scenario_.policies.in_progress_test == InProgressTest::Snapshot) return me.snapshot.contains(xid);
  return procarray_.TransactionIdIsInProgress(me, xid);
}

bool Heapam::HeapTupleSatisfiesMVCC(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq)
{
  const Snapshot& snap = me.snapshot;
  const TupleVersion t = version_at(row, seq);
  if (!(t.infomask & HEAP_XMIN_COMMITTED)) {
    if (t.infomask & HEAP_XMIN_INVALID) return false;
    if (t.xmin == me.xid) // our own row: visible unless we updated it since
      return t.xmax != me.xid || (t.infomask & HEAP_XMAX_LOCK_ONLY);
    if (XidMayBeRunning(me, t.xmin)) return false;
    if (TransactionIdDidCommit(me, clog_, t.xmin, XidAsker::SatisfiesMVCC)) {
      SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMIN_COMMITTED, t.xmin);
    } else {
      SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMIN_INVALID, InvalidTransactionId);
      return false;
    }
  }
  if ((t.infomask & HEAP_XMIN_FROZEN) != HEAP_XMIN_FROZEN && snap.contains(t.xmin))
    return false; // committed, but not as of our snapshot
  if (t.infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_LOCK_ONLY)) return true;
  if (!(t.infomask & HEAP_XMAX_COMMITTED)) {
    if (t.xmax == me.xid) return false; // updated by us in an earlier command
    if (XidMayBeRunning(me, t.xmax)) return true;
    if (!TransactionIdDidCommit(me, clog_, t.xmax, XidAsker::SatisfiesMVCC)) {
      SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_INVALID, InvalidTransactionId);
      return true;
    }
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_COMMITTED, t.xmax);
  }
  return snap.contains(t.xmax); // a deletion not yet committed as of our snapshot leaves it visible
}

// HeapTupleSatisfiesUpdate (PostgreSQL 15). A transaction that updates a row twice is not modelled.
TM_Result Heapam::HeapTupleSatisfiesUpdate(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq)
{
  const TupleVersion t = version_at(row, seq);
  // xmin first, as PostgreSQL does: a backend that waited for an updater and moves on to its
  // version leaves the updater's xid hinted there, at no lookup as the fetch cache holds it. An
  // aborted or running xmin (TM_Invisible) cannot occur, as walsim's transactions all commit.
  if (!(t.infomask & HEAP_XMIN_COMMITTED) && t.xmin != me.xid && !procarray_.TransactionIdIsInProgress(me, t.xmin) &&
      TransactionIdDidCommit(me, clog_, t.xmin, XidAsker::SatisfiesUpdate))
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMIN_COMMITTED, t.xmin);
  if (t.infomask & HEAP_XMAX_INVALID) return TM_Result::Ok;
  if (t.infomask & HEAP_XMAX_LOCK_ONLY) {
    if (t.xmax == me.xid) return TM_Result::Ok; // our own row lock
    if (procarray_.TransactionIdIsInProgress(me, t.xmax)) return TM_Result::BeingModified;
    // The locker ended without updating.
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_INVALID, InvalidTransactionId);
    return TM_Result::Ok;
  }
  if (t.infomask & HEAP_XMAX_COMMITTED) return TM_Result::Updated;
  if (procarray_.TransactionIdIsInProgress(me, t.xmax)) return TM_Result::BeingModified;
  if (!TransactionIdDidCommit(me, clog_, t.xmax, XidAsker::SatisfiesUpdate)) { // the updater aborted
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_INVALID, InvalidTransactionId);
    return TM_Result::Ok;
  }
  SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_COMMITTED, t.xmax);
  return TM_Result::Updated;
}

// HeapTupleSatisfiesVacuum, answering only "dead to everybody?" as heap_page_prune needs.
bool Heapam::HeapTupleIsRemovable(Backend& me, Relation& rel, HeapPage& page, HeapRow& row, std::uint32_t seq)
{
  const TupleVersion t = version_at(row, seq);
  if (!(t.infomask & HEAP_XMIN_COMMITTED)) {
    if (t.infomask & HEAP_XMIN_INVALID) return true;
    if (t.xmin == me.xid || procarray_.TransactionIdIsInProgress(me, t.xmin)) return false;
    if (!TransactionIdDidCommit(me, clog_, t.xmin, XidAsker::SatisfiesVacuum)) {
      SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMIN_INVALID, InvalidTransactionId);
      return true;
    }
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMIN_COMMITTED, t.xmin);
  }
  if (t.infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_LOCK_ONLY)) return false; // live
  if (!(t.infomask & HEAP_XMAX_COMMITTED)) {
    if (t.xmax == me.xid || procarray_.TransactionIdIsInProgress(me, t.xmax)) return false;
    if (!TransactionIdDidCommit(me, clog_, t.xmax, XidAsker::SatisfiesVacuum)) {
      SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_INVALID, InvalidTransactionId);
      return false;
    }
    SetHintBits(me, rel, page, version_at(row, seq), HEAP_XMAX_COMMITTED, t.xmax);
  }
  // RECENTLY_DEAD until no snapshot can still see it.
  return t.xmax < me.GlobalXmin;
}

} // namespace pg
