/* kblockd's dispatch of fdatasync()'s cache flush: the caller waits, off its CPU, for a kernel
 * thread that needs a CPU of its own before the device sees the flush. The thread runs at
 * nice -20, so it gets the CPU its caller leaves ahead of the processes waiting for one. */
#include "models/kblockd.hpp"
#include "sim/nvme.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

using sim::Proc;
using test::Harness;

namespace {
constexpr double us = 1e-6;

// The time at which a flush asked for at t = 10 us completes, by a backend that ran from t = 0,
// with `hogs` processes wanting 2 ms of CPU each from t = 0 on a 2-CPU machine without wake-up
// preemption.
double flush_done(int hogs, sim::Scheduler scheduler = sim::Scheduler::Fifo)
{
  auto params      = test::quiet_cpu(2);
  params.scheduler = scheduler;
  Harness h(params);
  sim::NvmeParams device_params;
  device_params.flush_latency = 100 * us;
  sim::Nvme device(device_params);
  pg::Kblockd kblockd(99, h.cpu, device, 5 * us, sim::kCpu);
  h.simulation.spawn("kblockd", [&kblockd]() { kblockd.main(); }); // asleep before anyone asks
  h.start(h.proc("backend"), [&](Proc& p) {
    p.work(10 * us * 1e9);
    kblockd.flush(p, sim::kCpu);
  });
  for (int i = 0; i < hogs; i++)
    h.start(h.proc("hog"), [](Proc& p) {
      p.work(2e-3 * 1e9);
      p.flush();
    });
  h.run(1);
  return device.last_completion();
}
} // namespace

TEST_CASE("kblockd: a flush reaches the device once the worker has run, at once on an idle CPU", "[kblockd]")
{
  CHECK(flush_done(0) == Approx(115 * us)); // asked at 10 us; 5 us of dispatch, then the device's 100 us
}

TEST_CASE("kblockd: on a busy machine the worker runs ahead of the processes waiting for a CPU", "[kblockd]")
{
  // One hog takes the second CPU at once and the other waits for one from t = 0; the worker,
  // woken at 10 us, still gets the CPU the backend leaves, whichever way the queue is ordered.
  CHECK(flush_done(2) == Approx(115 * us));
  CHECK(flush_done(2, sim::Scheduler::Cfs) == Approx(115 * us));
  CHECK(flush_done(2, sim::Scheduler::Eevdf) == Approx(115 * us));
}
