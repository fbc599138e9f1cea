/* Tests of sim::PageTable: what a new process's first touches of shared memory cost, as measured
 * on Linux (read faults map an aligned fault-around window, write faults one page). */
#include "sim/page_table.hpp"

#include <catch2/catch.hpp>

namespace {

constexpr double kUs = 1e-6;

sim::PageFaultParams measured_like()
{
  sim::PageFaultParams p;
  p.read         = 16 * kUs;
  p.write        = 10 * kUs;
  p.first_touch  = 4.5 * kUs;
  p.fault_around = 16;
  return p;
}

} // namespace

TEST_CASE("PageTable: a read fault maps its aligned window, whose pages then cost a first touch", "[page_table]")
{
  sim::PageTable t(measured_like(), 2);
  CHECK(t.touch(0, 17, 17, sim::PageAccess::Read) == Approx(16 * kUs));
  // Pages 16-31 are mapped: each of the others costs its first touch once, then nothing.
  CHECK(t.touch(0, 16, 16, sim::PageAccess::Read) == Approx(4.5 * kUs));
  CHECK(t.touch(0, 31, 31, sim::PageAccess::Write) == Approx(4.5 * kUs));
  CHECK(t.touch(0, 16, 17, sim::PageAccess::Read) == 0);
  CHECK(t.touch(0, 31, 31, sim::PageAccess::Write) == 0);
  // Outside the window, and in another segment, memory is still unmapped.
  CHECK(t.touch(0, 15, 15, sim::PageAccess::Read) == Approx(16 * kUs));
  CHECK(t.touch(0, 32, 32, sim::PageAccess::Read) == Approx(16 * kUs));
  CHECK(t.touch(1, 17, 17, sim::PageAccess::Read) == Approx(16 * kUs));
  CHECK(t.stats().read_faults == 4);
  CHECK(t.stats().write_faults == 0);
  CHECK(t.stats().first_touches == 2);
}

TEST_CASE("PageTable: a write fault maps its page only, and a read fault skips mapped pages", "[page_table]")
{
  sim::PageTable t(measured_like(), 1);
  CHECK(t.touch(0, 0, 1, sim::PageAccess::Write) == Approx(20 * kUs));
  CHECK(t.touch(0, 2, 2, sim::PageAccess::Write) == Approx(10 * kUs));
  CHECK(t.touch(0, 0, 2, sim::PageAccess::Read) == 0);
  // A read of page 3 maps 4-15 around it; 0-2 were mapped by writes and cost no first touch.
  CHECK(t.touch(0, 3, 3, sim::PageAccess::Read) == Approx(16 * kUs));
  CHECK(t.touch(0, 0, 15, sim::PageAccess::Read) == Approx(12 * 4.5 * kUs));
  CHECK(t.stats().write_faults == 3);
  CHECK(t.stats().read_faults == 1);
  CHECK(t.stats().first_touches == 12);
  t.reset_stats();
  CHECK(t.stats().read_faults + t.stats().write_faults + t.stats().first_touches == 0);
}

TEST_CASE("PageTable: without fault-around a read maps one page", "[page_table]")
{
  sim::PageFaultParams p = measured_like();
  p.fault_around         = 1;
  sim::PageTable t(p, 1);
  CHECK(t.touch(0, 0, 3, sim::PageAccess::Read) == Approx(4 * 16 * kUs));
  CHECK(t.stats().first_touches == 0);
}
