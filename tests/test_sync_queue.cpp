/* The fsync request queue (checkpointer.c / 9.1 bgwriter.c): filling it, compacting it, a backend
 * doing its own fsync when it is full, and the absorbing process emptying it. */
#include "models/bgwriter.hpp"
#include "models/sync_queue.hpp"
#include "scan_rig.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

#include <vector>

using pg::CheckpointerRequestQueue;
using pg::FileTag;
using pg::ForwardResult;

namespace {
const FileTag A{16384, 0};
const FileTag B{16384, 1};
const FileTag C{16385, 0};
} // namespace

TEST_CASE("fsync queue: requests queue up to max_requests, duplicates and all", "[sync_queue]")
{
  CheckpointerRequestQueue q(4, true);
  for (int i = 0; i < 4; i++) CHECK(q.Forward(A) == ForwardResult::Queued);
  CHECK(q.num_requests() == 4);
  CHECK(q.too_full());
}

TEST_CASE("fsync queue: a full queue is compacted to the last of identical requests", "[sync_queue]")
{
  CheckpointerRequestQueue q(4, true);
  for (int i = 0; i < 4; i++) q.Forward(A);
  CHECK(q.Forward(A) == ForwardResult::QueuedAfterCompaction);
  CHECK(q.num_requests() == 2);
  const std::vector<FileTag> left = q.Absorb();
  CHECK(left == std::vector<FileTag>{A, A});
  CHECK(q.num_requests() == 0);
}

TEST_CASE("fsync queue: compaction keeps the order of the requests it keeps", "[sync_queue]")
{
  CheckpointerRequestQueue q(5, true);
  for (const FileTag& t : {A, B, A, C, B}) q.Forward(t);
  CHECK(q.CompactCheckpointerRequestQueue() == 2);
  CHECK(q.Absorb() == std::vector<FileTag>{A, C, B});
}

TEST_CASE("fsync queue: full and nothing to drop, or compaction off, leaves the fsync to the backend", "[sync_queue]")
{
  CheckpointerRequestQueue distinct(3, true);
  for (const FileTag& t : {A, B, C}) distinct.Forward(t);
  CHECK(distinct.Forward(A) == ForwardResult::QueueFull);
  CHECK(distinct.num_requests() == 3);

  CheckpointerRequestQueue before_2011(3, false);
  for (int i = 0; i < 3; i++) before_2011.Forward(A);
  CHECK(before_2011.Forward(A) == ForwardResult::QueueFull);
  CHECK(before_2011.num_requests() == 3);
}

TEST_CASE("fsync queue: a backend that finds the queue full without compaction fsyncs the segment itself",
          "[sync_queue]")
{
  test::ScanRig rig(test::rig_scenario(16), 1000, test::rig_queue(4, false));
  pg::SmgrRelation rel("t", 16384, 40);
  rig.bufmgr.add_relation(rel);
  rig.os.preload_clean(rel.os_file(0), rel.nblocks());
  double fsync_started = 0, fsync_done = 0;
  rig.run([&]() {
    // 16 buffers dirtied for real, then 6 more pages read: 6 evictions write 6 pages.
    for (std::uint32_t b = 0; b < 16; b++) {
      const int buf = rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr);
      rig.bufmgr.MarkBufferDirty(buf);
      rig.bufmgr.ReleaseBuffer(buf);
    }
    for (std::uint32_t b = 16; b < 20; b++)
      rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr));
    rig.backend.proc.flush();
    fsync_started = sim::Simulation::now();
    rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, 20, nullptr));
    fsync_done = rig.backend.proc.local_time();
    rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, 21, nullptr));
  });
  CHECK(rig.counters.writes == 6);
  CHECK(rig.counters.fsync_requests == 4);
  CHECK(rig.counters.fsyncs == 2);
  CHECK(rig.sync.stats().backend_fsync == 2);
  CHECK(rig.sync.stats().compactions == 0);
  // The first fsync wrote the five dirty pages, the second only the sixth.
  CHECK(rig.os.stats().pages_written_back == 6);
  CHECK(rig.os.dirty_pages(rel.os_file(0)) == 0);
  // 5 consecutive pages in one request: 50us + 5 x 100us, then a 1ms flush; 10us write and 20us
  // fsync CPU before, a 9us read after; a few us of wake-up costs allowed.
  CHECK(fsync_done - fsync_started == Approx(10e-6 + 20e-6 + 550e-6 + 1e-3 + 9e-6).margin(10e-6));
}

TEST_CASE("fsync queue: with compaction, the same writes only compact the queue", "[sync_queue]")
{
  test::ScanRig rig(test::rig_scenario(16), 1000, test::rig_queue(4, true));
  pg::SmgrRelation rel("t", 16384, 40);
  rig.bufmgr.add_relation(rel);
  rig.os.preload_clean(rel.os_file(0), rel.nblocks());
  rig.run([&]() {
    for (std::uint32_t b = 0; b < 16; b++) {
      const int buf = rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr);
      rig.bufmgr.MarkBufferDirty(buf);
      rig.bufmgr.ReleaseBuffer(buf);
    }
    for (std::uint32_t b = 16; b < 24; b++)
      rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr));
  });
  CHECK(rig.counters.writes == 8);
  CHECK(rig.counters.fsync_requests == 8);
  CHECK(rig.counters.fsyncs == 0);
  // The 5th request finds 4 identical ones and leaves 1 (+ itself); the 8th does it again.
  CHECK(rig.sync.stats().compactions == 2);
  CHECK(rig.sync.stats().compacted == 6);
  CHECK(rig.sync.queue().num_requests() == 2);
  CHECK(rig.os.dirty_pages(rel.os_file(0)) == 8);
}

TEST_CASE("fsync queue: the 9.1 background writer absorbs every bgwriter_delay", "[sync_queue]")
{
  test::ScanRig rig(test::rig_scenario(16), 1000, test::rig_queue(8, true));
  pg::Backend bgw("bgwriter", 1, rig.cpu, sim::Rng(1, 1));
  pg::BgWriter bgwriter(bgw.proc, rig.sync, 0.2, 0, 2);
  rig.simulation.spawn("bgwriter", [&]() { bgwriter.main(); });
  int queued_before = -1, queued_after = -1;
  rig.run([&]() {
    test::at(rig.backend.proc, 0.05);
    for (int i = 0; i < 6; i++) rig.sync.ForwardSyncRequest(rig.backend.proc, A);
    test::at(rig.backend.proc, 0.19);
    queued_before = rig.sync.queue().num_requests();
    test::at(rig.backend.proc, 0.21);
    queued_after = rig.sync.queue().num_requests();
  });
  CHECK(queued_before == 6); // half full does not matter to the 9.1 background writer
  CHECK(queued_after == 0);
  CHECK(rig.sync.pending_ops().count(A) == 1);
  CHECK(rig.sync.stats().nudges == 0);
}

TEST_CASE("fsync queue: a backend nudges the checkpointer when the queue is half full (9.2+)", "[sync_queue]")
{
  pg::SyncQueueParams params = test::rig_queue(8, true);
  params.wakeup              = pg::SyncQueueWakeup::HalfFull;
  test::ScanRig rig(test::rig_scenario(16), 1000, params);
  pg::Backend ckpt("checkpointer", 1, rig.cpu, sim::Rng(1, 1));
  pg::BgWriter checkpointer(ckpt.proc, rig.sync, 300, 0, 2);
  rig.simulation.spawn("checkpointer", [&]() { checkpointer.main(); });
  int queued_at_3 = -1, queued_later = -1;
  rig.run([&]() {
    test::at(rig.backend.proc, 0.05);
    for (int i = 0; i < 3; i++) rig.sync.ForwardSyncRequest(rig.backend.proc, A);
    queued_at_3 = rig.sync.queue().num_requests();
    rig.sync.ForwardSyncRequest(rig.backend.proc, A); // 4 of 8: half full
    test::at(rig.backend.proc, 0.06);
    queued_later = rig.sync.queue().num_requests();
  });
  CHECK(queued_at_3 == 3);
  CHECK(queued_later == 0);
  CHECK(rig.sync.stats().nudges == 1);
  CHECK(checkpointer.cycles() == 2);
}
