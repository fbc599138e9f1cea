/* shared_buffers: the free list, the clock sweep, the rings of buffer access strategies
 * (freelist.c) and the buffer manager's eviction writes (bufmgr.c), on scripted cases. */
#include "models/buffer_pool.hpp"
#include "scan_rig.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <vector>

using pg::BufferAccessStrategy;
using pg::BufferAccessStrategyType;
using pg::BufferPool;
using pg::GetAccessStrategy;
using pg::VictimSource;

namespace {

/// Takes a victim and gives it a page, as BufferAlloc does: pinned, usage count 1.
int allocate(BufferPool& pool, BufferAccessStrategy* strategy, std::uint32_t block, VictimSource* from = nullptr)
{
  VictimSource source = VictimSource::FreeList;
  const int buf       = pool.StrategyGetBuffer(strategy, &source);
  pg::BufferDesc& d   = pool.GetBufferDescriptor(buf);
  if (d.tag_valid) pool.BufTableDelete(d.tag);
  d.tag       = pg::BufferTag{1, block};
  d.tag_valid = true;
  pool.BufTableInsert(d.tag, buf);
  d.usage_count = 1;
  d.refcount    = 1;
  if (from != nullptr) *from = source;
  return buf;
}

} // namespace

TEST_CASE("BufferPool: the free list first, in buffer order", "[buffer_pool]")
{
  BufferPool pool(16);
  std::vector<int> got;
  for (std::uint32_t b = 0; b < 16; b++) {
    VictimSource from = VictimSource::Ring;
    got.push_back(allocate(pool, nullptr, b, &from));
    CHECK(from == VictimSource::FreeList);
  }
  for (int i = 0; i < 16; i++) CHECK(got[static_cast<std::size_t>(i)] == i);
  CHECK(pool.free_list_length() == 0);
  CHECK(pool.BufTableLookup(pg::BufferTag{1, 7}) == 7);
  CHECK(pool.BufTableLookup(pg::BufferTag{1, 99}) == -1);
}

TEST_CASE("BufferPool: the clock sweep decrements usage counts and takes the first unused buffer", "[buffer_pool]")
{
  BufferPool pool(16);
  for (std::uint32_t b = 0; b < 16; b++) pool.UnpinBuffer(allocate(pool, nullptr, b));
  // Buffer 3 was used more: two more passes of the hand before it can go.
  pool.GetBufferDescriptor(3).usage_count = 3;
  VictimSource from                       = VictimSource::FreeList;
  CHECK(pool.StrategyGetBuffer(nullptr, &from) == 0); // first pass: all 1 -> 0, then buffer 0
  CHECK(from == VictimSource::ClockSweep);
  CHECK(pool.GetBufferDescriptor(1).usage_count == 0);
  CHECK(pool.GetBufferDescriptor(3).usage_count == 2);
  CHECK(pool.stats().clock_ticks == 17);
  CHECK(pool.StrategyGetBuffer(nullptr, &from) == 1);
  CHECK(pool.StrategyGetBuffer(nullptr, &from) == 2);
  CHECK(pool.StrategyGetBuffer(nullptr, &from) == 4); // 3 still has a usage count
  CHECK(pool.GetBufferDescriptor(3).usage_count == 1);
}

TEST_CASE("BufferPool: pinned buffers are skipped, and with every buffer pinned there is no victim", "[buffer_pool]")
{
  BufferPool pool(16);
  for (std::uint32_t b = 0; b < 16; b++) allocate(pool, nullptr, b); // all stay pinned
  pool.UnpinBuffer(9);
  pool.GetBufferDescriptor(9).usage_count = 0;
  VictimSource from                       = VictimSource::FreeList;
  CHECK(pool.StrategyGetBuffer(nullptr, &from) == 9);
  pool.GetBufferDescriptor(9).refcount = 1;
  CHECK_THROWS_AS(pool.StrategyGetBuffer(nullptr, &from), std::runtime_error);
}

TEST_CASE("GetAccessStrategy: 256kB rings for bulk reads and VACUUM, 16MB for bulk writes, at most NBuffers/8",
          "[buffer_pool]")
{
  CHECK(GetAccessStrategy(BufferAccessStrategyType::BulkRead, 16384).ring_size() == 32);
  CHECK(GetAccessStrategy(BufferAccessStrategyType::Vacuum, 16384).ring_size() == 32);
  CHECK(GetAccessStrategy(BufferAccessStrategyType::BulkWrite, 16384).ring_size() == 2048);
  CHECK(GetAccessStrategy(BufferAccessStrategyType::BulkWrite, 4096).ring_size() == 512);
  CHECK(GetAccessStrategy(BufferAccessStrategyType::BulkRead, 128).ring_size() == 16);
  CHECK(GetAccessStrategy(BufferAccessStrategyType::Normal, 4096).ring_size() == 0);
}

TEST_CASE("BufferPool: a bulk read recycles its ring once it has gone round", "[buffer_pool]")
{
  BufferPool pool(256); // ring of 32
  BufferAccessStrategy ring = GetAccessStrategy(BufferAccessStrategyType::BulkRead, pool.NBuffers());
  std::vector<int> first;
  for (std::uint32_t b = 0; b < 32; b++) {
    first.push_back(allocate(pool, &ring, b));
    pool.UnpinBuffer(first.back());
  }
  for (std::uint32_t b = 32; b < 96; b++) {
    VictimSource from = VictimSource::FreeList;
    const int buf     = allocate(pool, &ring, b, &from);
    pool.UnpinBuffer(buf);
    CHECK(from == VictimSource::Ring);
    CHECK(buf == first[b % 32]);
  }
  CHECK(pool.free_list_length() == 256 - 32);
  CHECK(pool.stats().ring_reuses == 64);
}

TEST_CASE("BufferPool: a ring buffer someone else pinned or used is replaced by a new one", "[buffer_pool]")
{
  BufferPool pool(256);
  BufferAccessStrategy ring = GetAccessStrategy(BufferAccessStrategyType::BulkRead, pool.NBuffers());
  std::vector<int> first;
  for (std::uint32_t b = 0; b < 32; b++) {
    first.push_back(allocate(pool, &ring, b));
    pool.UnpinBuffer(first.back());
  }
  pool.GetBufferDescriptor(first[0]).refcount    = 1; // another backend holds it
  pool.GetBufferDescriptor(first[1]).usage_count = 2; // another backend used it since
  VictimSource from                              = VictimSource::Ring;
  const int a                                    = allocate(pool, &ring, 32, &from);
  CHECK(from == VictimSource::FreeList);
  CHECK(a != first[0]);
  pool.UnpinBuffer(a);
  const int b = allocate(pool, &ring, 33, &from);
  CHECK(from == VictimSource::FreeList);
  CHECK(b != first[1]);
  pool.UnpinBuffer(b);
  // The new buffers took the old ones' slots: the next revolution reuses them.
  for (std::uint32_t blk = 34; blk < 64; blk++) pool.UnpinBuffer(allocate(pool, &ring, blk));
  CHECK(allocate(pool, &ring, 64, &from) == a);
  CHECK(from == VictimSource::Ring);
}

TEST_CASE("BufferPool: StrategyRejectBuffer drops only the bulk read's current ring buffer", "[buffer_pool]")
{
  BufferPool pool(256);
  BufferAccessStrategy ring   = GetAccessStrategy(BufferAccessStrategyType::BulkRead, pool.NBuffers());
  BufferAccessStrategy vacuum = GetAccessStrategy(BufferAccessStrategyType::Vacuum, pool.NBuffers());
  for (std::uint32_t b = 0; b < 32; b++) pool.UnpinBuffer(allocate(pool, &ring, b));
  VictimSource from = VictimSource::FreeList;
  const int reused  = pool.StrategyGetBuffer(&ring, &from);
  REQUIRE(from == VictimSource::Ring);
  CHECK_FALSE(BufferPool::StrategyRejectBuffer(&vacuum, reused));
  CHECK_FALSE(BufferPool::StrategyRejectBuffer(&ring, reused + 1));
  CHECK(BufferPool::StrategyRejectBuffer(&ring, reused));
  // The ring moves on; the emptied slot takes a fresh buffer when the ring comes round to it.
  for (int slot = 1; slot < 32; slot++) {
    pool.StrategyGetBuffer(&ring, &from);
    CHECK(from == VictimSource::Ring);
  }
  const int fresh = pool.StrategyGetBuffer(&ring, &from);
  CHECK(from == VictimSource::FreeList);
  CHECK(fresh != reused);
}

TEST_CASE("BufferPool: a strategy's pin keeps the usage count at one, a normal pin raises it to five", "[buffer_pool]")
{
  BufferPool pool(16);
  BufferAccessStrategy ring = GetAccessStrategy(BufferAccessStrategyType::BulkRead, 16384);
  const int buf             = allocate(pool, nullptr, 0);
  pool.UnpinBuffer(buf);
  for (int i = 0; i < 3; i++) {
    pool.PinBuffer(buf, &ring);
    pool.UnpinBuffer(buf);
  }
  CHECK(pool.GetBufferDescriptor(buf).usage_count == 1);
  for (int i = 0; i < 10; i++) {
    pool.PinBuffer(buf, nullptr);
    pool.UnpinBuffer(buf);
  }
  CHECK(pool.GetBufferDescriptor(buf).usage_count == pg::BM_MAX_USAGE_COUNT);
  CHECK_THROWS_AS(pool.UnpinBuffer(buf), std::logic_error);
}

TEST_CASE("BufferManager: evicting a dirty buffer writes it, registers an fsync request, and reads the new page",
          "[buffer_pool]")
{
  test::ScanRig rig(test::rig_scenario(16), 1000, test::rig_queue(100, true));
  pg::SmgrRelation rel("t", 16384, 40);
  rig.bufmgr.add_relation(rel);
  rig.os.preload_clean(rel.os_file(0), rel.nblocks());
  double evict_time = 0;
  rig.run([&]() {
    for (std::uint32_t b = 0; b < 16; b++)
      rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr));
    const int b0                             = rig.pool.BufTableLookup(pg::BufferTag{16384, 0});
    rig.bufmgr.BufferGetPage(b0).all_visible = true;
    rig.bufmgr.MarkBufferDirty(b0);
    rig.backend.proc.flush();
    const double start = rig.backend.proc.local_time();
    // The clock sweep's first victim is buffer 0, holding block 0.
    const int buf = rig.bufmgr.ReadBufferExtended(rig.io, rel, 16, nullptr);
    evict_time    = rig.backend.proc.local_time() - start;
    CHECK(buf == b0);
    rig.bufmgr.ReleaseBuffer(buf);
  });
  CHECK(rig.counters.reads == 17);
  CHECK(rig.counters.writes == 1);
  CHECK(rig.counters.hint_writes == 0);
  CHECK(rig.counters.evictions == 1);
  CHECK(rig.counters.fsync_requests == 1);
  CHECK(rig.sync.queue().num_requests() == 1);
  CHECK(rig.os.dirty_pages(rel.os_file(0)) == 1);
  CHECK(rel.stored(0).all_visible);
  CHECK_FALSE(rel.stored(1).all_visible);
  // A write into the page cache (2 + 8us) and a cached read (1 + 8us), nothing else costs.
  CHECK(evict_time == Approx(19 * test::us).margin(1e-9));
}

namespace {
/// Dirties 16 buffers through hint bits only, then reads 4 more pages, evicting 4 of them.
struct HintOnlyEviction {
  explicit HintOnlyEviction(pg::HintBitIo policy)
      : rig(test::rig_scenario(16), 1000, test::rig_queue(100, true), policy, 0.0), rel("t", 16384, 40)
  {
    rig.bufmgr.add_relation(rel);
    rig.os.preload_clean(rel.os_file(0), rel.nblocks());
    rig.run([this]() {
      for (std::uint32_t b = 0; b < 16; b++) {
        const int buf                           = rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr);
        rig.bufmgr.BufferGetPage(buf).xmin_hint = pg::XminHint::Committed;
        rig.bufmgr.MarkBufferDirtyHint(rig.io, buf);
        rig.bufmgr.ReleaseBuffer(buf);
      }
      for (std::uint32_t b = 16; b < 20; b++)
        rig.bufmgr.ReleaseBuffer(rig.bufmgr.ReadBufferExtended(rig.io, rel, b, nullptr));
    });
  }
  test::ScanRig rig;
  pg::SmgrRelation rel;
};
} // namespace

TEST_CASE("BufferManager: a buffer dirtied only by hint bits is written at eviction (unlimited)", "[buffer_pool]")
{
  HintOnlyEviction e(pg::HintBitIo::Unlimited);
  CHECK(e.rig.counters.dirtied_by_hints == 16);
  CHECK(e.rig.counters.writes == 4);
  CHECK(e.rig.counters.hint_writes == 4);
  CHECK(e.rig.counters.hint_writes_skipped == 0);
  CHECK(e.rel.stored(0).xmin_hint == pg::XminHint::Committed);
  CHECK(e.rel.stored(4).xmin_hint == pg::XminHint::None); // still in shared_buffers
}

TEST_CASE("BufferManager: without budget, a hint-only buffer is evicted unwritten (limited)", "[buffer_pool]")
{
  HintOnlyEviction e(pg::HintBitIo::Limited);
  CHECK(e.rig.counters.dirtied_by_hints == 16);
  CHECK(e.rig.counters.writes == 0);
  CHECK(e.rig.counters.hint_writes_skipped == 4);
  CHECK(e.rig.counters.fsync_requests == 0);
  CHECK(e.rel.stored(0).xmin_hint == pg::XminHint::None); // the hints never reached the file
  CHECK(e.rig.os.dirty_pages(e.rel.os_file(0)) == 0);
}
