/* shared_buffers for the pgbench relations (models/shared_buffers.hpp): untracked while the tables
 * fit; once they do not, a page outside it is read from the OS page cache into a clock-sweep
 * victim, a dirty victim is written first and only after its WAL is flushed, a second reader
 * waits for a read under way, and a table that outgrows shared_buffers starts the tracking. */
#include "models/backend.hpp"
#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/shared_buffers.hpp"
#include "models/wait_event.hpp"
#include "models/xlog.hpp"
#include "scan_rig.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"
#include "sim_harness.hpp"
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace {

using test::us;

constexpr double kRead  = 2e-6 + 8 * 0.1e-6; // OsCosts' read() plus copying 8kB out of the cache
constexpr double kWrite = 2e-6 + 8 * 0.1e-6;

pg::Scenario buffer_scenario(int nbuffers)
{
  pg::Scenario s                 = test::rig_scenario(nbuffers);
  s.hardware.cpu.idle_wakeup_cpu = 0; // so that waits end exactly when what they wait for does
  return s;
}

// The transaction rig's WAL, CPU and backends, with shared_buffers over a table and a history.
struct BufferRig {
  BufferRig(int nbuffers, std::uint64_t rows) : BufferRig(buffer_scenario(nbuffers), rows) {}
  BufferRig(const pg::Scenario& s, std::uint64_t rows)
      : txn(s, 2), buffers(txn.scenario, txn.events, txn.xlog),
        table("pgbench_accounts", rows, 128, 100, true, txn.events.BufferContent, txn.events.LockExtend,
              txn.scenario.policies.lwlock),
        history("pgbench_history", 0, 64, 100, true, txn.events.BufferContent, txn.events.LockExtend,
                txn.scenario.policies.lwlock)
  {
    buffers.add_relation(table, true);
    buffers.add_relation(history, false);
    buffers.start();
  }

  void run(const std::vector<std::function<void(pg::Backend&)>>& scripts) { txn.run(scripts); }

  /// A heap page of the table that shared_buffers does not hold now.
  std::uint32_t absent_block()
  {
    for (std::uint32_t b = 0; b < table.nblocks(); b++)
      if (!buffers.resident(table.page(b))) return b;
    FAIL("every page is resident");
    return 0;
  }

  static double now() { return sim::Simulation::now(); }

  test::TxnRig txn;
  pg::Xlog& xlog = txn.xlog;
  pg::SharedBuffers buffers;
  pg::Relation table;
  pg::Relation history;
};

} // namespace

TEST_CASE("shared_buffers: tables that fit are not tracked and their pages cost nothing", "[shared_buffers]")
{
  BufferRig rig(1024, 2000); // a few dozen pages in 1,024 buffers
  REQUIRE_FALSE(rig.buffers.active());
  double after = -1;
  rig.run({[&](pg::Backend& me) {
    rig.buffers.pin(me, rig.table.page(3));
    rig.buffers.unpin(rig.table.page(3));
    rig.buffers.visit_leaf(me, rig.table, 2);
    me.proc.flush();
    after = BufferRig::now();
  }});
  CHECK(after == 0);
  CHECK(rig.buffers.stats().reads == 0);
  CHECK(rig.buffers.stats().hits == 0);
}

TEST_CASE("shared_buffers: a page outside it is read once from the page cache, then found", "[shared_buffers]")
{
  BufferRig rig(64, 20000); // hundreds of pages in 64 buffers
  REQUIRE(rig.buffers.active());
  const std::uint32_t block = rig.absent_block();
  double first = -1, second = -1;
  rig.run({[&](pg::Backend& me) {
    rig.buffers.pin(me, rig.table.page(block));
    rig.buffers.unpin(rig.table.page(block));
    me.proc.flush();
    first = BufferRig::now();
    rig.buffers.pin(me, rig.table.page(block));
    rig.buffers.unpin(rig.table.page(block));
    me.proc.flush();
    second = BufferRig::now();
  }});
  CHECK(first == Approx(kRead));
  CHECK(second == Approx(first));
  CHECK(rig.buffers.resident(rig.table.page(block)));
  CHECK(rig.buffers.stats().reads == 1);
  CHECK(rig.buffers.stats().hits == 1);
  CHECK(rig.buffers.stats().evictions == 1);
  CHECK(rig.buffers.stats().writes == 0); // the preloaded victim was clean
}

TEST_CASE("shared_buffers: a dirty victim is written only after the WAL up to its LSN is flushed", "[shared_buffers]")
{
  BufferRig rig(64, 20000);
  REQUIRE(rig.buffers.active());
  const std::uint32_t block = rig.absent_block();
  pg::XLogRecPtr lsn        = pg::InvalidXLogRecPtr;
  double read_done          = -1;
  rig.run({[&](pg::Backend& me) {
    // Every resident page changed by a record not yet flushed.
    lsn = rig.xlog.XLogInsert(me, pg::XLogRecordData{100, 0});
    for (std::uint32_t b = 0; b < rig.table.nblocks(); b++) {
      rig.table.page(b).lsn   = lsn;
      rig.table.page(b).dirty = true;
    }
    for (std::uint32_t leaf = 0; leaf < rig.table.index_leaves(); leaf++) rig.table.index_leaf_lsn(leaf) = lsn;
    me.proc.flush();
    const double start = BufferRig::now();
    REQUIRE(rig.xlog.flushed_lsn() < lsn);
    rig.buffers.pin(me, rig.table.page(block));
    rig.buffers.unpin(rig.table.page(block));
    me.proc.flush();
    read_done = BufferRig::now() - start;
  }});
  CHECK(rig.xlog.flushed_lsn() >= lsn);
  CHECK(rig.buffers.stats().writes == 1);
  CHECK(rig.buffers.stats().wal_flushes == 1);
  CHECK(read_done > kWrite + kRead); // the WAL flush, the write, then the read
  CHECK_FALSE(rig.table.page(block).dirty);
}

TEST_CASE("shared_buffers: a backend that finds a page being read waits for that read", "[shared_buffers]")
{
  BufferRig rig(64, 20000);
  const std::uint32_t block = rig.absent_block();
  double second_done        = -1;
  rig.run({[&](pg::Backend& me) {
             rig.buffers.pin(me, rig.table.page(block));
             rig.buffers.unpin(rig.table.page(block));
             me.proc.flush();
           },
           [&](pg::Backend& me) {
             test::at(me.proc, 1 * us);
             rig.buffers.pin(me, rig.table.page(block));
             rig.buffers.unpin(rig.table.page(block));
             me.proc.flush();
             second_done = BufferRig::now();
           }});
  CHECK(second_done == Approx(kRead));
  CHECK(rig.buffers.stats().reads == 1);
  CHECK(rig.buffers.stats().hits == 1);
}

TEST_CASE("shared_buffers: a table that outgrows it during the run starts the tracking", "[shared_buffers]")
{
  BufferRig rig(64, 2000); // heap, leaves and history's first page: a few dozen of 64
  REQUIRE_FALSE(rig.buffers.active());
  auto extend = [&rig](pg::Backend& me) {
    bool extended             = false;
    const std::uint32_t block = rig.history.target_block(pg::BLCKSZ, &extended);
    REQUIRE(extended);
    rig.buffers.extend(me, rig.history, block);
  };
  rig.run({[&](pg::Backend& me) {
    // A pin taken while untracked (Heapam counts it on the page) is still held when tracking starts.
    pg::HeapPage& held = rig.table.page(rig.table.nblocks() - 1);
    held.pins++;
    rig.buffers.pin(me, held);
    for (int i = 0; i < 100 && !rig.buffers.active(); i++) extend(me);
    REQUIRE(rig.buffers.active());
    CHECK(rig.buffers.resident(held));
    held.pins--;
    rig.buffers.unpin(held); // the pin came along: releasing it is no error
    CHECK(rig.buffers.total_pages() == 65);
    // A new page takes a buffer without a read.
    const auto extends = rig.buffers.stats().extends;
    extend(me);
    me.proc.flush();
    CHECK(rig.buffers.stats().extends == extends + 1);
  }});
  CHECK(rig.buffers.stats().reads == 0);
  CHECK(rig.buffers.resident(rig.history.page(rig.history.nblocks() - 1)));
}

namespace {

// Five misses (the first one's sweep takes every usage count to zero on its way round), every
// heap page dirtied, then one background-writer round: what it wrote.
int bgwriter_round(int maxpages)
{
  pg::Scenario s                   = buffer_scenario(64);
  s.settings.bgwriter_lru_maxpages = maxpages;
  BufferRig rig(s, 20000);
  int written = -1;
  rig.run({[&](pg::Backend& me) {
    for (int i = 0; i < 5; i++) {
      const std::uint32_t block = rig.absent_block();
      rig.buffers.pin(me, rig.table.page(block));
      rig.buffers.unpin(rig.table.page(block));
    }
    for (std::uint32_t b = 0; b < rig.table.nblocks(); b++) rig.table.page(b).dirty = true;
    const auto backend_writes = rig.buffers.stats().writes;
    written                   = rig.buffers.BgBufferSync(rig.txn.backend(1));
    CHECK(rig.buffers.stats().writes == backend_writes);
    rig.txn.backend(1).proc.flush();
  }});
  CHECK(rig.buffers.stats().bgwriter_writes == static_cast<std::uint64_t>(written));
  return written;
}

} // namespace

TEST_CASE("shared_buffers: the background writer cleans dirty buffers ahead of the clock", "[shared_buffers]")
{
  // Five allocations, times bgwriter_lru_multiplier 2: it stops once ten reusable buffers are
  // found, some of them clean primary-key leaves.
  const int written = bgwriter_round(100);
  CHECK(written > 3);
  CHECK(written <= 10);
}

TEST_CASE("shared_buffers: the background writer writes at most bgwriter_lru_maxpages a round", "[shared_buffers]")
{
  CHECK(bgwriter_round(3) == 3);
}

TEST_CASE("shared_buffers: bgwriter_lru_maxpages 0 turns the background writer's cleaning off", "[shared_buffers]")
{
  CHECK(bgwriter_round(0) == 0);
}
