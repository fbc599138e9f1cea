/* The OS page cache in front of the data device: hits, misses, dirty pages, fsync, eviction. */
#include "models/os_cache.hpp"
#include "scan_rig.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

using test::ms;
using test::us;

namespace {
/// A process alone on a quiet CPU, with the rig's page cache of `pages` pages over its device.
struct CacheRig {
  explicit CacheRig(double pages)
      : harness(test::quiet_cpu(1)), device(test::rig_device()), cache(test::rig_os_cache(pages), {}, device)
  {
  }
  test::Harness harness;
  sim::Nvme device;
  pg::OsPageCache cache;
};

double elapsed(sim::Proc& p, const std::function<void()>& op)
{
  p.flush();
  const double start = p.local_time();
  op();
  return p.local_time() - start;
}
} // namespace

TEST_CASE("OsPageCache: a cached page costs a system call and a copy, a miss also the device", "[os_cache]")
{
  CacheRig r(100);
  r.cache.preload_clean(1, 10);
  double hit = 0, miss = 0;
  bool hit_flag = false, miss_flag = true;
  sim::Proc& p = r.harness.proc("backend");
  r.harness.start(p, [&](sim::Proc& me) {
    hit  = elapsed(me, [&]() { hit_flag = r.cache.read(me, 1, 3); });
    miss = elapsed(me, [&]() { miss_flag = r.cache.read(me, 1, 42); });
  });
  r.harness.run(1);
  CHECK(hit_flag);
  CHECK_FALSE(miss_flag);
  CHECK(hit == Approx(9 * us).margin(1e-12));
  // Blocking on the device costs a wake-up too: a few us of margin.
  CHECK(miss == Approx(100 * us + 100 * us + 9 * us).margin(10 * us));
  CHECK(r.cache.cached(1, 42));
  CHECK(r.cache.stats().hits == 1);
  CHECK(r.cache.stats().misses == 1);
}

TEST_CASE("OsPageCache: writes leave dirty pages that fsync writes out in runs of consecutive blocks", "[os_cache]")
{
  CacheRig r(100);
  double write = 0, sync = 0;
  std::uint64_t written = 0, written_again = 0;
  sim::Proc& p = r.harness.proc("backend");
  r.harness.start(p, [&](sim::Proc& me) {
    write = elapsed(me, [&]() {
      for (std::uint32_t b : {0u, 1u, 2u, 7u}) r.cache.write(me, 1, b);
    });
    r.cache.write(me, 2, 0); // another file: not part of file 1's fsync
    sync          = elapsed(me, [&]() { written = r.cache.fsync(me, 1); });
    written_again = r.cache.fsync(me, 1);
  });
  r.harness.run(1);
  CHECK(write == Approx(4 * 10 * us).margin(1e-12));
  CHECK(written == 4);
  CHECK(written_again == 0);
  CHECK(r.cache.dirty_pages(1) == 0);
  CHECK(r.cache.dirty_pages(2) == 1);
  // Two requests, blocks 0-2 and block 7, through one transfer channel: 50us + 300us, then
  // 100us more for block 7; the flush follows (1ms). 20us of fsync CPU first.
  CHECK(sync == Approx(20 * us + 450 * us + 1 * ms).margin(10 * us));
  CHECK(r.device.stats().writes == 2);
  CHECK(r.device.stats().flushes == 2);
}

TEST_CASE("OsPageCache: the least recently used page goes first, a dirty one written on its way out", "[os_cache]")
{
  CacheRig r(4);
  sim::Proc& p = r.harness.proc("backend");
  r.harness.start(p, [&](sim::Proc& me) {
    r.cache.write(me, 1, 0);
    for (std::uint32_t b = 1; b < 4; b++) r.cache.read(me, 1, b);
    r.cache.read(me, 1, 1); // block 1 is recent again
    r.cache.read(me, 1, 4); // evicts block 0, dirty
    r.cache.read(me, 1, 5); // evicts block 2
  });
  r.harness.run(1);
  CHECK_FALSE(r.cache.cached(1, 0));
  CHECK(r.cache.cached(1, 1));
  CHECK_FALSE(r.cache.cached(1, 2));
  CHECK(r.cache.cached(1, 3));
  CHECK(r.cache.stats().evictions == 2);
  CHECK(r.cache.stats().pages_written_back == 1);
  CHECK(r.device.stats().writes == 1);
}
