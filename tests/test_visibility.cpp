/* Tuple visibility and hint bits (heapam_visibility.c, transam.c, bufmgr.c of PostgreSQL 15) with
 * asynchronous commits: the single-entry fetch cache, TransactionIdIsInProgress before
 * TransactionIdDidCommit, SetHintBits under each rule, and MarkBufferDirtyHint. */
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

using pg::Backend;
using pg::HEAP_XMIN_COMMITTED;
using pg::HintBitRule;
using pg::TransactionId;
using pg::XLogRecPtr;
using test::TxnRig;

namespace {
// The writer inserts row 1's only version at once and commits it at `commit_at`.
void insert_then_commit_at(TxnRig& rig, Backend& writer, double commit_at)
{
  rig.commit_at(writer, commit_at, [&] {
    const TransactionId xid = rig.procarray.GetNewTransactionId(writer);
    writer.XactLastRecEnd   = rig.xlog.XLogInsert(writer, pg::XLogRecordData{100, 0});
    TxnRig::put_version(rig.logged, 1, xid);
  });
}
} // namespace

TEST_CASE("TransactionLogFetch: the single-entry cache answers repeated questions without CLogControlLock",
          "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    const TransactionId a = rig.commit_one(me);
    const TransactionId b = rig.commit_one(me);
    const auto sh0        = rig.shacq();
    CHECK(pg::TransactionIdDidCommit(me, rig.clog, a, pg::XidAsker::SatisfiesMVCC));
    CHECK(rig.shacq() == sh0 + 1);
    CHECK(pg::TransactionIdDidCommit(me, rig.clog, a, pg::XidAsker::SatisfiesMVCC)); // cached
    CHECK(pg::TransactionIdGetCommitLSN(me, rig.clog, a) != pg::InvalidXLogRecPtr);  // cached too
    CHECK(rig.shacq() == sh0 + 1);
    CHECK(pg::TransactionIdDidCommit(me, rig.clog, b, pg::XidAsker::SatisfiesMVCC)); // one entry only: b replaces a
    CHECK(pg::TransactionIdDidCommit(me, rig.clog, a, pg::XidAsker::SatisfiesMVCC));
    CHECK(rig.shacq() == sh0 + 3);
    CHECK(rig.clog.stats().cache_hits == 2);
    // Only the questions that reached the CLOG count, under the routine that asked.
    const auto& by = rig.clog.stats().lookups_by;
    CHECK(by[static_cast<std::size_t>(pg::XidAsker::SatisfiesMVCC)] == 3);
    CHECK(by[static_cast<std::size_t>(pg::XidAsker::SetHintBits)] == 0);
  });
}

TEST_CASE("HeapTupleSatisfiesVacuum: TransactionIdIsInProgress first, the CLOG only for finished transactions",
          "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  rig.run({[&](Backend& writer) { insert_then_commit_at(rig, writer, 1e-3); },
           [&](Backend& reader) {
             test::at(reader.proc, 0.5e-3);
             pg::HeapRow& row = rig.logged.row(1);
             const auto sh0   = rig.shacq();
             // Still running: answered by the ProcArray, no CLOG lookup, no hint.
             CHECK_FALSE(rig.heap.HeapTupleIsRemovable(reader, rig.logged, rig.logged.page(0), row, 0));
             CHECK(rig.shacq() == sh0);
             CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) == 0);
             test::at(reader.proc, 2e-3);
             // Committed: TransactionIdDidCommit asks the CLOG once, then the hint answers.
             CHECK_FALSE(rig.heap.HeapTupleIsRemovable(reader, rig.logged, rig.logged.page(0), row, 0));
             CHECK(rig.shacq() == sh0 + 1);
             CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) != 0);
             CHECK(rig.clog.stats().lookups_by[static_cast<std::size_t>(pg::XidAsker::SatisfiesVacuum)] == 1);
           }});
}

TEST_CASE(
    "SetHintBits, flush rule: no committed hint while the commit record is unflushed, then one, dirtying the page",
    "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    XLogRecPtr lsn        = 0;
    const TransactionId x = rig.commit_one(me, &lsn);
    TxnRig::see_all(me, x + 1);
    pg::HeapRow& row   = TxnRig::put_version(rig.logged, 1, x);
    pg::HeapPage& page = rig.logged.page(0);
    page.dirty         = false;
    page.lsn           = 0; // behind the commit: the page-LSN exception would not apply either
    REQUIRE(rig.xlog.flushed_lsn() < lsn);
    for (int i = 0; i < 3; i++) CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, page, row, 0));
    CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) == 0);
    CHECK(rig.heap.hint_stats().refused == 3);
    CHECK_FALSE(page.dirty);
    rig.xlog.XLogFlush(me, lsn);
    CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, page, row, 0));
    CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) != 0);
    CHECK(rig.heap.hint_stats().set == 1);
    CHECK(page.dirty); // MarkBufferDirtyHint
  });
}

TEST_CASE("SetHintBits, flush rule: readers of unhinted versions of several transactions keep asking the CLOG",
          "[visibility]")
{
  // Two rows last written by two different unflushed transactions, read alternately: the fetch
  // cache holds one transaction, so every read is a CLOG lookup under the flush rule; without
  // the rule ("always", the thread's patch) the first read of each hints it and that is all.
  TxnRig rig(test::txn_scenario(HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    const TransactionId x = rig.commit_one(me);
    const TransactionId y = rig.commit_one(me);
    TxnRig::see_all(me, y + 1);
    pg::HeapPage& page = rig.logged.page(0);
    page.lsn           = 0;
    auto reads         = [&]() {
      pg::HeapRow& r1 = TxnRig::put_version(rig.logged, 1, x);
      pg::HeapRow& r2 = TxnRig::put_version(rig.logged, 2, y);
      const auto sh0  = rig.shacq();
      for (int i = 0; i < 10; i++) {
        rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, page, r1, 0);
        rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, page, r2, 0);
      }
      return rig.shacq() - sh0;
    };
    me.cachedFetchXid               = pg::InvalidTransactionId;
    const auto flushed              = reads();
    rig.scenario.policies.hint_bits = HintBitRule::Always;
    me.cachedFetchXid               = pg::InvalidTransactionId;
    const auto always               = reads();
    CHECK(flushed == 20);
    CHECK(always == 2);
  });
}

TEST_CASE("SetHintBits, 'always' (test removed): the hint is set at once, before the flush", "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  rig.run([&](Backend& me) {
    XLogRecPtr lsn        = 0;
    const TransactionId x = rig.commit_one(me, &lsn);
    TxnRig::see_all(me, x + 1);
    pg::HeapRow& row   = TxnRig::put_version(rig.logged, 1, x);
    pg::HeapPage& page = rig.logged.page(0);
    page.dirty         = false;
    REQUIRE(rig.xlog.flushed_lsn() < lsn);
    CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, page, row, 0));
    CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) != 0);
    CHECK(rig.heap.hint_stats().refused == 0);
    CHECK(page.dirty);
  });
}

TEST_CASE("SetHintBits: an unlogged table never waits for the flush, under the flush rule too", "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    XLogRecPtr lsn        = 0;
    const TransactionId x = rig.commit_one(me, &lsn);
    TxnRig::see_all(me, x + 1);
    pg::HeapRow& row   = TxnRig::put_version(rig.unlogged, 1, x);
    pg::HeapPage& page = rig.unlogged.page(0);
    REQUIRE(rig.xlog.flushed_lsn() < lsn);
    CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.unlogged, page, row, 0));
    CHECK((pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) != 0);
    CHECK(rig.heap.hint_stats().refused == 0);
  });
}

TEST_CASE("SetHintBits, page-LSN rule: a page already past the commit LSN takes the hint before the flush",
          "[visibility]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::FlushedOrPageLsn));
  rig.run([&](Backend& me) {
    XLogRecPtr lsn        = 0;
    const TransactionId x = rig.commit_one(me, &lsn);
    TxnRig::see_all(me, x + 1);
    pg::HeapRow& behind_row = TxnRig::put_version(rig.logged, 1, x);
    pg::HeapPage& behind    = rig.logged.page(0);
    behind.lsn              = lsn - 1;
    CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, behind, behind_row, 0));
    CHECK((pg::version_at(behind_row, 0).infomask & HEAP_XMIN_COMMITTED) == 0);
    pg::HeapRow& past_row = TxnRig::put_version(rig.logged, 2, x);
    pg::HeapPage& past    = rig.logged.page(1);
    past.lsn              = lsn;
    CHECK(rig.heap.HeapTupleSatisfiesMVCC(me, rig.logged, past, past_row, 0));
    CHECK((pg::version_at(past_row, 0).infomask & HEAP_XMIN_COMMITTED) != 0);
  });
}

namespace {
struct InProgressResult {
  bool visible_running       = true;  // read while the writer still runs
  bool visible_ended         = true;  // read after it committed, with the snapshot taken before
  std::uint64_t procarray_sh = 0;     // ProcArrayLock shared acquisitions by the two reads
  std::uint64_t clog_sh      = 0;     // CLogControlLock shared acquisitions by the two reads
  bool hinted                = false; // the committed hint is set after the second read
};

// A writer inserts a version and commits at 1 ms; a reader takes its snapshot at 0.5 ms, while
// the writer runs, and reads the version at 0.7 ms and again at 2 ms.
InProgressResult read_around_commit(pg::InProgressTest test)
{
  auto s                           = test::txn_scenario(HintBitRule::Always);
  s.policies.in_progress_test      = test;
  s.policies.procarray_group_clear = false;
  TxnRig rig(s);
  InProgressResult r;
  rig.run({[&](Backend& writer) { insert_then_commit_at(rig, writer, 1e-3); },
           [&](Backend& reader) {
             test::at(reader.proc, 0.5e-3);
             rig.procarray.GetSnapshotData(reader);
             const auto pa0   = rig.procarray.lock().stats().shacq;
             const auto cl0   = rig.shacq();
             pg::HeapRow& row = rig.logged.row(1);
             test::at(reader.proc, 0.7e-3);
             r.visible_running = rig.heap.HeapTupleSatisfiesMVCC(reader, rig.logged, rig.logged.page(0), row, 0);
             test::at(reader.proc, 2e-3);
             r.visible_ended = rig.heap.HeapTupleSatisfiesMVCC(reader, rig.logged, rig.logged.page(0), row, 0);
             r.procarray_sh  = rig.procarray.lock().stats().shacq - pa0;
             r.clog_sh       = rig.shacq() - cl0;
             r.hinted        = (pg::version_at(row, 0).infomask & HEAP_XMIN_COMMITTED) != 0;
           }});
  return r;
}
} // namespace

TEST_CASE("HeapTupleSatisfiesMVCC, snapshot test (9.6+): a transaction running at the snapshot is never looked up",
          "[visibility]")
{
  const InProgressResult r = read_around_commit(pg::InProgressTest::Snapshot);
  CHECK_FALSE(r.visible_running);
  CHECK_FALSE(r.visible_ended);
  CHECK(r.procarray_sh == 0);
  CHECK(r.clog_sh == 0);
  CHECK_FALSE(r.hinted);
}

TEST_CASE("HeapTupleSatisfiesMVCC, ProcArray test (to 9.5): ProcArrayLock while it runs, then pg_xact and the hint",
          "[visibility]")
{
  const InProgressResult r = read_around_commit(pg::InProgressTest::ProcArray);
  CHECK_FALSE(r.visible_running);
  CHECK_FALSE(r.visible_ended); // still invisible to a snapshot taken before the commit
  CHECK(r.procarray_sh == 2);   // both reads scan the ProcArray
  CHECK(r.clog_sh == 1);        // the second finds it ended and asks pg_xact
  CHECK(r.hinted);
}
