/* kblockd's dispatch of fdatasync()'s cache flush: the caller waits, off its CPU, for a kernel
 * thread that needs a CPU of its own before the device sees the flush. */
#include "models/kblockd.hpp"
#include "sim/nvme.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

using sim::Proc;
using test::Harness;

namespace {
constexpr double us = 1e-6;

// The time at which a flush asked for at t = 0 completes, with `hogs` processes wanting 2 ms of
// CPU each from t = 0 on a 2-CPU machine that schedules in arrival order without preemption.
double flush_done(int hogs)
{
  auto params      = test::quiet_cpu(2);
  params.scheduler = sim::Scheduler::Fifo;
  Harness h(params);
  sim::NvmeParams device_params;
  device_params.flush_latency = 100 * us;
  sim::Nvme device(device_params);
  pg::Kblockd kblockd(99, h.cpu, device, 5 * us, sim::kCpu);
  double done = -1;
  h.start(h.proc("backend"), [&](Proc& p) {
    kblockd.flush(p, sim::kCpu);
    done = Harness::now();
  });
  for (int i = 0; i < hogs; i++)
    h.start(h.proc("hog"), [](Proc& p) {
      p.work(2e-3 * 1e9);
      p.flush();
    });
  h.simulation.spawn("kblockd", [&kblockd]() { kblockd.main(); });
  h.run(1);
  return done;
}
} // namespace

TEST_CASE("kblockd: a flush reaches the device once the worker has run, at once on an idle CPU", "[kblockd]")
{
  CHECK(flush_done(0) == Approx(105 * us)); // its 5 us of dispatch, then the device's 100 us
}

TEST_CASE("kblockd: on a busy machine the flush waits for the worker to get a CPU", "[kblockd]")
{
  // One hog takes the second CPU at once, the other the first as soon as the backend sleeps: the
  // worker, woken after both, runs when a hog is done at 2 ms.
  CHECK(flush_done(2) == Approx(2e-3 + 105 * us));
}
