/* UPDATE under row-lock conflicts (heapam.c's heap_update and heap_lock_tuple, nodeModifyTable.c's
 * EvalPlanQual path; PostgreSQL 15): the index scan's pin and the waiter's pin, and the lock
 * record written before an updated row is rechecked. */
#include "models/shmem.hpp"
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

using pg::Backend;
using pg::HintBitRule;
using pg::TransactionId;
using test::TxnRig;

namespace {
// Row 1 of the rig's logged relation holds one version, committed before anything else runs.
void committed_row(TxnRig& rig, Backend& me)
{
  const TransactionId x0 = rig.commit_one(me);
  TxnRig::put_version(rig.logged, 1, x0);
}

// Updates row 1 in a transaction of its own, committing at `commit_at`.
void update_then_commit_at(TxnRig& rig, Backend& me, double commit_at)
{
  rig.commit_at(me, commit_at, [&] {
    rig.procarray.GetSnapshotData(me);
    rig.heap.update(me, rig.logged, 1);
  });
}
} // namespace

TEST_CASE("heap_update, READ COMMITTED: a row updated since the snapshot is locked, with a WAL record, then updated",
          "[heapam]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  std::uint64_t first_update  = 0;
  std::uint64_t second_update = 0;
  rig.run({[&](Backend& b0) {
             committed_row(rig, b0);
             const auto before = rig.xlog.stats().wal_records;
             update_then_commit_at(rig, b0, 1e-3);
             first_update = rig.xlog.stats().wal_records - before - 1; // less its commit record
           },
           [&](Backend& b1) {
             test::at(b1.proc, 0.5e-3);
             rig.xact.StartTransaction(b1);
             rig.procarray.GetSnapshotData(b1); // b0 still runs: its new version is not seen
             test::at(b1.proc, 2e-3);
             const auto before = rig.xlog.stats().wal_records;
             rig.heap.update(b1, rig.logged, 1);
             second_update = rig.xlog.stats().wal_records - before;
             rig.xact.CommitTransaction(b1);
           }});
  CHECK(first_update == 1);
  CHECK(second_update == 2); // XLOG_HEAP_LOCK on the newest version, then the update
  CHECK(rig.logged.stats().tuple_locks == 1);
  CHECK(rig.logged.stats().hot_updates == 2);
  CHECK(pg::newest_seq(rig.logged.row(1)) == 2);
}

TEST_CASE("heap_update keeps its pin while it waits for the updater: the row's page cannot be pruned meanwhile",
          "[heapam]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  std::uint64_t skipped_while_waiting = 0;
  std::uint64_t skipped_after         = 0;
  auto try_prune                      = [&](Backend& me) {
    // Make the page look prunable and full to this backend, offer it, and put it back.
    pg::HeapPage& page        = rig.logged.page(0);
    const auto saved_free     = page.free_bytes;
    const auto saved_prune    = page.prune_xid;
    page.free_bytes           = 0;
    page.prune_xid            = pg::FirstNormalTransactionId;
    me.GlobalXmin             = rig.procarray.next_xid();
    const auto skipped_before = rig.logged.stats().prune_skipped;
    rig.heap.heap_page_prune_opt(me, rig.logged, 0);
    page.free_bytes = saved_free;
    page.prune_xid  = saved_prune;
    return rig.logged.stats().prune_skipped - skipped_before;
  };
  rig.run({[&](Backend& b0) {
             committed_row(rig, b0);
             update_then_commit_at(rig, b0, 3e-3);
           },
           [&](Backend& b1) {
             test::at(b1.proc, 1e-3);
             update_then_commit_at(rig, b1, 4e-3); // waits for b0 from 1 ms to 3 ms
           },
           [&](Backend& b2) {
             test::at(b2.proc, 2e-3);
             REQUIRE(rig.backend(1).waiting_on_lock);
             skipped_while_waiting = try_prune(b2);
             test::at(b2.proc, 5e-3);
             skipped_after = try_prune(b2);
           }});
  CHECK(skipped_while_waiting == 1); // b1's pin: no cleanup lock
  CHECK(skipped_after == 0);
  CHECK(rig.logged.stats().tuple_locks == 1);
}

TEST_CASE("heap_update after waiting for the updater leaves the updater's xid hinted on the version it moves to",
          "[heapam]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  std::uint64_t update_lookups = 0;
  rig.run({[&](Backend& b0) {
             committed_row(rig, b0);
             update_then_commit_at(rig, b0, 3e-3);
           },
           [&](Backend& b1) {
             test::at(b1.proc, 1e-3);
             const auto& by    = rig.clog.stats().lookups_by;
             const auto asker  = static_cast<std::size_t>(pg::XidAsker::SatisfiesUpdate);
             const auto before = by[asker];
             update_then_commit_at(rig, b1, 4e-3); // waits for b0 from 1 ms to 3 ms
             update_lookups = by[asker] - before;
           }});
  REQUIRE(pg::newest_seq(rig.logged.row(1)) == 2);
  // HeapTupleSatisfiesUpdate looks at xmin before xmax, as PostgreSQL 15 does: b0's version is
  // hinted for whoever reads it next, and the fetch cache answered, as b0's xid was just looked up
  // as the xmax of the version b1 waited on.
  CHECK((pg::version_at(rig.logged.row(1), 1).infomask & pg::HEAP_XMIN_COMMITTED) != 0);
  CHECK(update_lookups == 1);
}

TEST_CASE("heap_update waits for a running transaction's row lock, then updates the version it locked", "[heapam]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  double updated_at    = 0;
  bool locked_visible  = false;
  std::uint64_t record = 0;
  rig.run({[&](Backend& b0) {
             committed_row(rig, b0);
             // A transaction that only locks the row (as heap_lock_tuple leaves it) and ends at 3 ms.
             rig.commit_at(b0, 3e-3, [&] {
               pg::TupleVersion& v = rig.logged.row(1).versions.back();
               v.xmax              = rig.procarray.GetNewTransactionId(b0);
               v.infomask          = pg::HEAP_XMIN_COMMITTED | pg::HEAP_XMAX_LOCK_ONLY;
             });
           },
           [&](Backend& b1) {
             test::at(b1.proc, 1e-3);
             const auto before = rig.xlog.stats().wal_records;
             rig.commit_at(b1, 4e-3, [&] {
               rig.procarray.GetSnapshotData(b1);
               rig.heap.update(b1, rig.logged, 1);
               updated_at = TxnRig::now();
               record     = rig.xlog.stats().wal_records - before;
             });
           },
           [&](Backend& b2) {
             test::at(b2.proc, 2e-3);
             rig.xact.StartTransaction(b2);
             rig.procarray.GetSnapshotData(b2);
             locked_visible = rig.heap.index_fetch(b2, rig.logged, 1) == 0; // a lock deletes nothing
             rig.xact.CommitTransaction(b2);
           }});
  CHECK(locked_visible);
  CHECK(updated_at >= 3e-3); // it waited for the locker (Lock:transactionid)
  // The locker did not update the row: there is no chain to follow and no lock to take, so the
  // records are the locker's commit and the update, and the update made the row's second version.
  CHECK((record == 2 && rig.logged.stats().tuple_locks == 0 && pg::newest_seq(rig.logged.row(1)) == 1));
}

TEST_CASE("heap_update that must move the row to another page WAL-logs a row lock before giving up the page",
          "[heapam]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  std::uint64_t records = 0;
  rig.run([&](Backend& b0) {
    committed_row(rig, b0);
    rig.logged.page(0).free_bytes = 0; // no room for a HOT update
    const auto before             = rig.xlog.stats().wal_records;
    update_then_commit_at(rig, b0, 1e-3);
    records = rig.xlog.stats().wal_records - before - 1; // less the commit record
  });
  CHECK(records == 3); // XLOG_HEAP_LOCK, the update, the new index entry
  CHECK(rig.logged.stats().cold_updates == 1);
  CHECK(rig.logged.stats().tuple_locks == 0);
  const pg::TupleVersion& old = rig.logged.row(1).versions.front();
  CHECK((old.infomask & pg::HEAP_XMAX_LOCK_ONLY) == 0); // the update replaced the lock
}

TEST_CASE("an index scan by a new backend faults in the B-tree leaf's buffer as well as the heap page's",
          "[heapam][page_table]")
{
  TxnRig rig(test::txn_scenario(HintBitRule::Always));
  sim::PageFaultStats first;
  sim::PageFaultStats again;
  rig.run([&](Backend& b0) {
    committed_row(rig, b0);
    sim::PageFaultParams faults;
    faults.read         = 1e-6;
    faults.write        = 1e-6;
    faults.fault_around = 1; // one 4 kB page per fault, so faults count pages
    b0.page_table       = std::make_unique<sim::PageTable>(faults, pg::shmem::kSegments);
    rig.xact.StartTransaction(b0);
    rig.procarray.GetSnapshotData(b0);
    CHECK(rig.heap.index_fetch(b0, rig.logged, 1) == 0);
    first = b0.page_table->stats();
    CHECK(rig.heap.index_fetch(b0, rig.logged, 2) == 0); // the same leaf and heap page
    again = b0.page_table->stats();
    rig.xact.CommitTransaction(b0);
  });
  // Two buffers (the heap page's and the leaf's), each two 4 kB pages read; their descriptors
  // share one page, written by the pin's compare-and-swap.
  CHECK(first.read_faults == 4);
  CHECK(first.write_faults == 1);
  CHECK(again.read_faults == first.read_faults);
  CHECK(again.write_faults == first.write_faults);
}
