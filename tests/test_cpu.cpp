/* The CPU model: sharing by time slices, SMT, wake-up latencies, cache-line contention, latches. */
#include "sim/cacheline.hpp"
#include "sim/clock.hpp"
#include "sim/latch.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>
#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

using sim::Proc;
using test::at;
using test::Harness;

namespace {
constexpr double ms = 1e-3;
constexpr double us = 1e-6;

// Runs `count` processes that each have `seconds` of CPU work from time 0; returns when each ended.
std::vector<double> finish_times(Harness& h, int count, double seconds)
{
  std::vector<double> done(static_cast<std::size_t>(count), -1);
  for (int i = 0; i < count; i++)
    h.start(h.proc("p" + std::to_string(i)), [&done, i, seconds](Proc& p) {
      p.work(seconds * 1e9);
      p.flush();
      done[static_cast<std::size_t>(i)] = Harness::now();
    });
  h.run(1);
  return done;
}
} // namespace

TEST_CASE("CPU: more runnable processes than cores share them by time slices", "[cpu]")
{
  auto params       = test::quiet_cpu(2);
  params.time_slice = 1 * ms;
  Harness h(params);
  const std::vector<double> done = finish_times(h, 4, 10 * ms);
  // 40 ms of work on 2 cores ends at 20 ms; round-robin slices make everyone finish near the end.
  for (double d : done) {
    CHECK(d <= 20 * ms + 1e-9);
    CHECK(d >= 19 * ms - 1e-9);
  }
  CHECK(h.cpu.busy_seconds(Harness::now()) == Approx(40 * ms));
}

TEST_CASE("CPU: a process runs alone when there are enough cores", "[cpu]")
{
  Harness h(test::quiet_cpu(4));
  std::vector<double> done(4, -1);
  for (int i = 0; i < 4; i++)
    h.start(h.proc("p" + std::to_string(i)), [&, i](Proc& p) {
      p.work(10 * ms * 1e9);
      p.flush();
      done[static_cast<std::size_t>(i)] = Harness::now();
    });
  h.run(1);
  for (double d : done) CHECK(d == Approx(10 * ms));
}

TEST_CASE("CPU: work scales with the clock against the reference clock", "[cpu]")
{
  auto params         = test::quiet_cpu(1);
  params.clock_hz     = 2e9;
  params.reference_hz = 3e9;
  Harness h(params);
  double done = -1;
  h.start(h.proc("p"), [&](Proc& p) {
    p.work(1000); // 1 us at 3 GHz
    p.flush();
    done = Harness::now();
  });
  h.run(1);
  CHECK(done == Approx(1.5 * us));
}

TEST_CASE("CPU: busy SMT siblings share a core's throughput", "[cpu]")
{
  auto params             = test::quiet_cpu(1);
  params.threads_per_core = 2;
  params.smt_throughput   = 1.25;
  Harness h(params);
  std::vector<double> done(2, -1);
  for (int i = 0; i < 2; i++)
    h.start(h.proc("p" + std::to_string(i)), [&, i](Proc& p) {
      p.work(1 * ms * 1e9);
      p.flush();
      done[static_cast<std::size_t>(i)] = Harness::now();
    });
  h.run(1);
  // The first starts alone at full speed; the second sees a busy sibling and runs at 0.625.
  CHECK(done[0] == Approx(1 * ms));
  CHECK(done[1] == Approx(1.6 * ms));
}

TEST_CASE("CPU: waking onto an idle CPU costs the idle-exit latency, onto a busy one the run queue", "[cpu]")
{
  auto params        = test::quiet_cpu(1);
  params.idle_wakeup = 30 * us;
  params.time_slice  = 1.0;
  Harness h(params);
  double woke_idle = -1, woke_busy = -1;
  Proc& sleeper = h.proc("sleeper");
  Proc& waker   = h.proc("waker");
  h.start(sleeper, [&](Proc& p) {
    p.sleep(1);
    woke_idle = Harness::now();
    p.sleep(1);
    woke_busy = Harness::now();
  });
  h.start(waker, [&](Proc& p) {
    at(p, 1 * ms);
    sleeper.wake(); // CPU idle: the sleeper runs after 30 us
    at(p, 2 * ms);
    p.flush();
    sleeper.wake();
    p.work(1 * ms * 1e9); // the waker keeps the only CPU for 1 ms
    p.flush();
  });
  h.run(1);
  CHECK(woke_idle == Approx(1 * ms + 30 * us));
  // woken at 2 ms + 30 us (the waker's own idle exit), the sleeper waits for the CPU
  CHECK(woke_busy == Approx(3 * ms + 30 * us));
}

namespace {
// A sleeper woken twice by a waker on a 2-CPU machine: at 1 ms with the other CPU idle, at 2 ms
// with both CPUs busy (the waker until 3 ms, a hog on the other CPU from 1.5 ms until hog_end).
// Returns when the sleeper ran after each wake-up.
std::pair<double, double> wake_twice(double hog_end)
{
  auto params            = test::quiet_cpu(2);
  params.time_slice      = 1.0;
  params.context_switch  = 2 * us;
  params.busy_wakeup_cpu = 10 * us;
  Harness h(params);
  double ran_idle = -1, ran_busy = -1;
  Proc& sleeper = h.proc("sleeper");
  Proc& waker   = h.proc("waker");
  h.start(h.proc("hog"), [&](Proc& p) {
    at(p, 1.5 * ms);
    p.work((hog_end - 1.5 * ms) * 1e9);
    p.flush();
  });
  h.start(sleeper, [&](Proc& p) {
    p.sleep(1);
    p.flush();
    ran_idle = Harness::now();
    p.sleep(1);
    p.flush();
    ran_busy = Harness::now();
  });
  h.start(waker, [&](Proc& p) {
    at(p, 1 * ms);
    sleeper.wake(); // the other CPU is idle: no switch, no busy wake-up
    at(p, 2 * ms);
    p.flush();
    sleeper.wake();       // both CPUs are busy
    p.work(1 * ms * 1e9); // the waker keeps its CPU until 3 ms
    p.flush();
  });
  h.run(1);
  return {ran_idle, ran_busy};
}
} // namespace

TEST_CASE("CPU: a wake-up served by another CPU than the waker's costs a switch and busy_wakeup_cpu", "[cpu]")
{
  const auto [ran_idle, ran_busy] = wake_twice(2.5 * ms); // the hog's CPU frees first
  CHECK(ran_idle == Approx(1 * ms));
  CHECK(ran_busy == Approx(2.5 * ms + 12 * us));
}

TEST_CASE("CPU: a wake-up served by the waker's own CPU costs a switch only", "[cpu]")
{
  const auto [ran_idle, ran_busy] = wake_twice(4 * ms); // the waker's CPU frees first, at 3 ms
  CHECK(ran_idle == Approx(1 * ms));
  CHECK(ran_busy == Approx(3 * ms + 2 * us));
}

TEST_CASE("CPU: context switches are counted as Linux counts them: to and from idle too", "[cpu]")
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = 1 * ms;
  Harness h(params);
  // Alone, a process that works and blocks five times: in from idle and out to idle each time,
  // and once more to run its end.
  h.start(h.proc("alone"), [&](Proc& p) {
    for (int i = 0; i < 5; i++) {
      p.work(100 * us * 1e9);
      p.flush();
      p.block_until(Harness::now() + 100 * us, sim::kCpu);
    }
  });
  h.run(1);
  CHECK(h.cpu.switches() == 12);
}

TEST_CASE("CPU: two processes sharing one CPU by time slices switch at every slice", "[cpu]")
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = 1.0 / 1024;           // binary fractions: no rounding residue ends a slice early
  params.scheduler  = sim::Scheduler::Fifo; // strict turns
  Harness h(params);
  for (int i = 0; i < 2; i++)
    h.start(h.proc("p" + std::to_string(i)), [&](Proc& p) {
      p.work(5.0 / 1024 * 1e9);
      p.flush();
    });
  h.run(1);
  // Ten slices of work: in from idle, 9 hand-overs, out to idle at the end.
  CHECK(h.cpu.switches() == 11);
}

TEST_CASE("CPU: switches are also counted by kind of process with preemptions as involuntary", "[cpu]")
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = 1.0 / 1024;
  params.scheduler  = sim::Scheduler::Fifo;
  Harness h(params);
  for (int i = 0; i < 2; i++)
    h.start(h.proc("worker " + std::to_string(i)), [&](Proc& p) {
      p.work(5.0 / 1024 * 1e9);
      p.flush();
    });
  h.start(h.proc("sleeper"), [&](Proc& p) {
    for (int i = 0; i < 3; i++) p.block_until(Harness::now() + 1.0, sim::kCpu);
  });
  h.run(10);
  const auto by_kind = h.cpu.switches_by_kind();
  REQUIRE(by_kind.size() == 2);
  // Each worker is preempted at the end of each of its first four slices, and leaves once done.
  CHECK(by_kind.at("worker").involuntary == 8);
  CHECK(by_kind.at("worker").voluntary == 2);
  // The sleeper gives up its CPU at each of its three sleeps and at its end.
  CHECK(by_kind.at("sleeper").voluntary == 4);
  CHECK(by_kind.at("sleeper").involuntary == 0);
  std::uint64_t total = 0;
  for (const auto& [kind, n] : by_kind) total += n.voluntary + n.involuntary;
  CHECK(total < h.cpu.switches()); // the switches out of idle are nobody's
}

TEST_CASE("CPU: the time from a wake-up to running is counted by kind of process, as perf sched sees it", "[cpu]")
{
  auto params        = test::quiet_cpu(1);
  params.idle_wakeup = 10e-6;
  params.scheduler   = sim::Scheduler::Fifo;
  Harness h(params);
  h.start(h.proc("hog"), [&](Proc& p) {
    p.block_until(2e-3, sim::kCpu); // the CPU is idle until 2 ms, and back from idle 10 us later
    p.work(1e-3 * 1e9);             // then busy until 3.01 ms
    p.flush();
  });
  h.start(h.proc("sleeper"), [&](Proc& p) {
    p.block_until(1e-3, sim::kCpu);   // woken onto the idle CPU
    p.block_until(2.5e-3, sim::kCpu); // woken while the hog runs: it waits until 3.01 ms
  });
  h.run(1);
  const auto by_kind = h.cpu.switches_by_kind();
  CHECK(by_kind.at("sleeper").wakeups == 2);
  CHECK(by_kind.at("sleeper").wakeup_delay == Approx(10e-6 + 0.51e-3));
  CHECK(by_kind.at("hog").wakeups == 1);
  CHECK(by_kind.at("hog").wakeup_delay == Approx(10e-6));
}

TEST_CASE("CPU: busy time is charged to the kind of process that held the CPU, as /proc/PID/stat does", "[cpu]")
{
  auto params            = test::quiet_cpu(2);
  params.idle_wakeup     = 20e-6; // latency: the CPU is held but not busy
  params.idle_wakeup_cpu = 5e-6;  // the woken process's CPU time
  Harness h(params);
  h.start(h.proc("backend 0"), [&](Proc& p) {
    p.work(100e3); // 100 us at the reference clock
    p.flush();
  });
  h.start(h.proc("pgbench thread 0"), [&](Proc& p) {
    p.block_until(1e-3, sim::kCpu); // wakes onto an idle CPU
    p.work(30e3);
    p.flush();
  });
  h.run(1);
  const auto busy = h.cpu.busy_seconds_by_kind(Harness::now());
  REQUIRE(busy.size() == 2);
  CHECK(busy.at("backend") == Approx(100e-6).margin(1e-9));
  CHECK(busy.at("pgbench") == Approx(35e-6).margin(1e-9));
  CHECK(busy.at("backend") + busy.at("pgbench") == Approx(h.cpu.busy_seconds(Harness::now())).margin(1e-12));
}

namespace {
// Mean time per atomic (hold included) when `cores` processes hammer one line.
double mean_atomic_cost(int cores)
{
  auto params            = test::quiet_cpu(cores);
  params.line_hit        = 1e-9;
  params.line_local      = 50e-9;
  params.line_contention = 0.1;
  Harness h(params);
  sim::CacheLine line;
  double total = 0;
  for (int i = 0; i < cores; i++)
    h.start(h.proc("p" + std::to_string(i)), [&](Proc& p) {
      for (int k = 0; k < 100; k++) {
        const double t0 = Harness::now();
        line.rmw(p, 10e-9);
        p.work(200); // 200 ns of other work between atomics
        p.flush();
        total += Harness::now() - t0 - 200e-9;
      }
    });
  h.run(1);
  return total / (100.0 * cores);
}
} // namespace

// One simulation per process: each contention level is its own test case.
TEST_CASE("Cache line: one core alone pays the hold and a cache hit", "[cpu][cacheline]")
{
  CHECK(mean_atomic_cost(1) == Approx(11e-9).margin(0.5e-9));
}

TEST_CASE("Cache line: eight contending cores pay far more than one", "[cpu][cacheline]")
{
  // Every operation now moves the line between cores (50 ns) and queues behind the others.
  CHECK(mean_atomic_cost(8) > 3 * 61e-9);
}

TEST_CASE("Latch: WaitLatch times out, and SetLatch wakes a sleeping owner at the setter's own time and cost",
          "[latch]")
{
  Harness h(test::quiet_cpu(2));
  Proc& owner  = h.proc("walwriter");
  Proc& setter = h.proc("backend");
  sim::LatchParams params;
  params.signal = 2 * us;
  sim::Latch latch(owner, params);
  bool first = true, second = false, third = false;
  double t_first = -1, t_second = -1, setter_done = -1;
  h.start(owner, [&](Proc&) {
    first    = latch.wait(1 * ms, 1);
    t_first  = Harness::now();
    second   = latch.wait(10 * ms, 1);
    t_second = Harness::now();
    latch.reset();
    third = latch.is_set();
  });
  h.start(setter, [&](Proc& p) {
    at(p, 3 * ms);
    p.work(1 * ms * 1e9); // accrued, not yet simulated: the signal is sent at 4 ms
    latch.set(p);
    latch.set(p); // already set: free
    p.flush();
    setter_done = Harness::now();
  });
  h.run(1);
  CHECK_FALSE(first);
  CHECK(t_first == Approx(1 * ms));
  CHECK(second);
  CHECK(t_second == Approx(4 * ms + 2 * us));
  CHECK(setter_done == Approx(4 * ms + 2 * us));
  CHECK_FALSE(third);
}

namespace {
struct AwakeSetResult {
  bool signalled     = false;
  double setter_done = -1;
  double owner_back  = -1;
};

// The owner is busy until 1 ms, so the setter (at 0.5 ms) finds it awake, then it waits.
AwakeSetResult set_latch_of_awake_owner(const sim::LatchParams& params)
{
  Harness h(test::quiet_cpu(2));
  Proc& owner  = h.proc("walwriter");
  Proc& setter = h.proc("backend");
  sim::Latch latch(owner, params);
  AwakeSetResult r;
  h.start(owner, [&](Proc& p) {
    p.work(1 * ms * 1e9);
    latch.wait(10 * ms, 1);
    p.flush();
    r.owner_back = Harness::now();
  });
  h.start(setter, [&](Proc& p) {
    at(p, 0.5 * ms);
    r.signalled = latch.set(p);
    p.flush();
    r.setter_done = Harness::now();
  });
  h.run(1);
  return r;
}
} // namespace

TEST_CASE("Latch: from PostgreSQL 14 SetLatch does not signal an owner that is awake", "[latch]")
{
  sim::LatchParams params;
  params.signal          = 2 * us;
  const AwakeSetResult r = set_latch_of_awake_owner(params);
  CHECK_FALSE(r.signalled);
  CHECK(r.setter_done == Approx(0.5 * ms));
  CHECK(r.owner_back == Approx(1 * ms));
}

TEST_CASE("Latch: before PostgreSQL 14 SetLatch signals an owner that is awake, which pays the handler and a "
          "wait set per WaitLatch",
          "[latch]")
{
  sim::LatchParams params;
  params.signal            = 2 * us;
  params.signal_always     = true;
  params.signal_handler    = 1 * us;
  params.wait_set_per_call = true;
  params.wait_set          = 3 * us;
  const AwakeSetResult r   = set_latch_of_awake_owner(params);
  CHECK(r.signalled);
  CHECK(r.setter_done == Approx(0.5 * ms + 2 * us));
  // The latch is set, so WaitLatch returns at once, after building its wait set and running
  // the handler of the signal that came while the owner was busy.
  CHECK(r.owner_back == Approx(1 * ms + 4 * us));
}

TEST_CASE("Cache line: an operation takes the line before one booked later by a process ahead in time",
          "[cpu][cacheline]")
{
  // C writes the line at time 0. A has 1 us of work accrued when it books its atomic, so the
  // atomic happens at 1 us; B's atomic at 0.1 us must not queue behind it (as a single free-at
  // time would make it do): it takes the gap before, and both fetch the line from C's core.
  auto params       = test::quiet_cpu(3);
  params.line_local = 50e-9;
  Harness h(params);
  sim::CacheLine line;
  double a_done = -1, b_done = -1, b_waited = -1;
  h.start(h.proc("C"), [&](Proc& p) {
    p.flush();
    line.rmw(p);
    p.work(1e6); // keeps its core, so A and B run on others
    p.flush();
  });
  h.start(h.proc("A"), [&](Proc& p) {
    p.flush();
    p.work(1000); // 1 us at the reference clock
    line.rmw(p);
    p.flush();
    a_done = Harness::now();
  });
  h.start(h.proc("B"), [&](Proc& p) {
    at(p, 0.1e-6);
    b_waited = line.rmw(p);
    p.flush();
    b_done = Harness::now();
  });
  h.run(1);
  CHECK(b_waited == 0);
  CHECK(b_done == Approx(0.15e-6));
  CHECK(a_done == Approx(1.05e-6));
}

namespace {
sim::CpuParams cached_cpu(int cores)
{
  auto params            = test::quiet_cpu(cores);
  params.cache_size      = 64 * 1024;
  params.refill_per_byte = 1 * us / 1024; // 1 us per kB
  return params;
}

// On the one core: a (cold, 32 kB), b (cold, 64 kB), then a at 1 ms after b's 64 kB, b at 2 ms
// after a's 32 kB, a at 3 ms after b's 64 kB.
void run_a_b_a_b_a(Harness& h)
{
  Proc& a = h.proc("a");
  Proc& b = h.proc("b");
  a.set_working_set(32 * 1024);
  b.set_working_set(64 * 1024);
  h.start(a, [&](Proc& p) {
    p.flush();
    p.block_until(1 * ms, sim::kCpu);
    p.flush();
    p.block_until(3 * ms, sim::kCpu);
    p.flush();
  });
  h.start(b, [&](Proc& p) {
    p.block_until(2 * ms, sim::kCpu);
    p.flush();
  });
  h.run(1);
}
} // namespace

TEST_CASE("CPU: a process refills what others pushed out of its core's cache since it last ran there", "[cpu]")
{
  Harness h(cached_cpu(1));
  run_a_b_a_b_a(h);
  const double after_b = 32 * (1 - std::exp(-64.0 / 64));
  const double after_a = 64 * (1 - std::exp(-32.0 / 64));
  CHECK(h.cpu.refill_seconds() == Approx((32 + 64 + after_b + after_a + after_b) * us));
}

TEST_CASE("CPU: a process that moves to another core refills its whole working set", "[cpu]")
{
  Harness h(cached_cpu(2));
  Proc& a = h.proc("a");
  a.set_working_set(32 * 1024);
  h.start(h.proc("hog"), [&](Proc& p) { // core 0 until 1.2 ms
    p.work(1.2 * ms * 1e9);
    p.flush();
  });
  h.start(a, [&](Proc& p) {
    p.flush();                        // core 1, cold: 32 kB
    p.block_until(1 * ms, sim::kCpu); // meanwhile "other" takes core 1 until after 2 ms
    p.flush();                        // core 0 at 1.2 ms: 32 kB again
  });
  h.start(h.proc("other"), [&](Proc& p) {
    p.work(2 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  CHECK(h.cpu.refill_seconds() == Approx(64 * us));
}

TEST_CASE("CPU: what the socket's shared cache lost too comes from memory", "[cpu]")
{
  auto params                   = cached_cpu(1);
  params.shared_cache_size      = 128 * 1024;
  params.shared_refill_per_byte = 10 * us / 1024; // 10 us per kB beyond the shared cache's 1
  Harness h(params);
  // Of what the private cache lost, the part the shared cache lost too (after the same bytes, in a
  // cache twice the size) costs 10 us per kB more.
  run_a_b_a_b_a(h);
  const auto refill = [](double set, double pushed) {
    return set * (1 - std::exp(-pushed / 64)) * (1 + 10 * (1 - std::exp(-pushed / 128)));
  };
  const double cold = (32 + 64) * 11.0;
  CHECK(h.cpu.refill_seconds() == Approx((cold + refill(32, 64) + refill(64, 32) + refill(32, 64)) * us));
}

TEST_CASE("CPU: a process re-creates the translations others' pages pushed out, on any core of the socket", "[cpu]")
{
  auto params                = test::quiet_cpu(2);
  params.translation_entries = 100;
  params.translation_refault = 1 * us;
  Harness h(params);
  Proc& a = h.proc("a");
  Proc& b = h.proc("b");
  a.set_translation_set(10);
  b.set_translation_set(20);
  h.start(h.proc("hog"), [&](Proc& p) { // core 0 until 1.2 ms
    p.work(1.2 * ms * 1e9);
    p.flush();
  });
  h.start(a, [&](Proc& p) {
    p.flush();                        // core 1, none yet: 10 pages
    p.block_until(1 * ms, sim::kCpu); // meanwhile b runs on core 1 (20 pages, new)
    p.flush();                        // core 0 at 1.2 ms: what b's 20 pages pushed out
  });
  h.start(b, [&](Proc& p) {
    p.block_until(0.5 * ms, sim::kCpu);
    p.flush();
    p.work(2 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  CHECK(h.cpu.refill_seconds() == 0);
  CHECK(h.cpu.translation_seconds() == Approx((10 + 20 + 10 * (1 - std::exp(-20.0 / 100))) * us));
}

namespace {
// A process body that runs 0.1 ms on the CPU at each of these times (ms).
std::function<void(Proc&)> runs_at(std::vector<double> times)
{
  return [times](Proc& p) {
    for (const double at : times) {
      p.block_until(at * ms, sim::kCpu);
      p.work(0.1 * ms * 1e9);
      p.flush();
    }
  };
}
} // namespace

TEST_CASE("CPU: a hardware thread keeps the last two address spaces ready, a third costs a reload", "[cpu]")
{
  auto params                 = test::quiet_cpu(1);
  params.address_spaces       = 2;
  params.address_space_reload = 1 * us;
  Harness h(params);
  // Each starts on the CPU at 0 in turn (three spaces, all new), then runs a b a b: a and b come
  // back after c and the other ran, so both reload, and then they alternate and keep theirs. Then
  // c, pushed out by a and b, and a and b again, each pushed out by the two before it.
  h.start(h.proc("a"), runs_at({1, 3, 6}));
  h.start(h.proc("b"), runs_at({2, 4, 7}));
  h.start(h.proc("c"), runs_at({5}));
  h.run(1);
  CHECK(h.cpu.address_space_seconds() == Approx((3 + 2 + 3) * us));
}

TEST_CASE("CPU: pgbench's threads share one address space, and a kernel thread switches none", "[cpu]")
{
  auto params                 = test::quiet_cpu(1);
  params.address_spaces       = 2;
  params.address_space_reload = 1 * us;
  Harness h(params);
  Proc& t0 = h.proc("pgbench 0");
  Proc& t1 = h.proc("pgbench 1");
  Proc& kw = h.proc("kworker");
  t1.share_address_space(t0);
  kw.set_kernel_thread();
  h.start(t0, runs_at({1, 4}));
  h.start(t1, runs_at({2, 5}));
  h.start(kw, runs_at({3, 6}));
  h.start(h.proc("backend"), runs_at({3.5, 6.5}));
  h.run(1);
  // pgbench's space once, the backend's once; the kernel thread and the second thread add none.
  CHECK(h.cpu.address_space_seconds() == Approx(2 * us));
}

TEST_CASE("CPU: without a cache size no process pays a refill", "[cpu]")
{
  Harness h(test::quiet_cpu(1));
  Proc& a = h.proc("a");
  a.set_working_set(32 * 1024);
  h.start(a, [&](Proc& p) {
    p.flush();
    p.block_until(1 * ms, sim::kCpu);
    p.flush();
  });
  h.run(1);
  CHECK(h.cpu.refill_seconds() == 0);
}

namespace {
// Two CPUs: a hog holds CPU 0 until 2 ms; a (32 kB) runs on CPU 1, sleeps from about 32 us to
// 0.5 ms while b takes CPU 1 until 3 ms. Returns when a runs again and on which slot.
std::pair<double, int> wait_for_own_cpu(double migration_cost)
{
  auto params           = cached_cpu(2);
  params.migration_cost = migration_cost;
  Harness h(params);
  Proc& a = h.proc("a");
  a.set_working_set(32 * 1024);
  double ran = -1;
  int slot   = -1;
  h.start(h.proc("hog"), [&](Proc& p) {
    p.work(2 * ms * 1e9);
    p.flush();
  });
  h.start(a, [&](Proc& p) {
    p.flush();
    p.block_until(0.5 * ms, sim::kCpu);
    p.flush();
    ran  = Harness::now();
    slot = p.slot();
  });
  h.start(h.proc("b"), [&](Proc& p) {
    p.work(3 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  return {ran, slot};
}
} // namespace

TEST_CASE("CPU: a freed CPU leaves a process that is cache-hot on another CPU to wait for it", "[cpu]")
{
  const auto [ran, slot] = wait_for_own_cpu(5 * ms); // a left CPU 1 1.97 ms before CPU 0 frees
  CHECK(ran == Approx(3 * ms + 32 * us));            // CPU 1, when b is done (b's 3 ms began at a's 32 us)
  CHECK(slot == 1);
}

TEST_CASE("CPU: a freed CPU takes a waiting process that has gone cache-cold elsewhere", "[cpu]")
{
  const auto [ran, slot] = wait_for_own_cpu(1 * ms);
  CHECK(ran == Approx(2 * ms + 32 * us)); // CPU 0 at 2 ms, after refilling all 32 kB there
  CHECK(slot == 0);
}

namespace {
constexpr double kSlice = 1.0 / 1024; // a binary fraction: no rounding residue ends a slice early

// One CPU shared by three CPU-bound processes; a fourth runs `ran` slices first (one is its fair
// share then), sleeps until 20.25 slices (a quarter into a slice), then asks for the CPU again.
// Returns how long it waited for it.
double wait_after_sleep(sim::Scheduler scheduler, double ran = 1)
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = kSlice;
  params.scheduler  = scheduler;
  Harness h(params);
  double waited = -1;
  for (int i = 0; i < 3; i++)
    h.start(h.proc("hog" + std::to_string(i)), [&](Proc& p) {
      p.work(40 * kSlice * 1e9);
      p.flush();
    });
  h.start(h.proc("sleeper"), [&](Proc& p) {
    p.work(ran * kSlice * 1e9);
    p.flush();
    p.block_until(20.25 * kSlice, sim::kCpu);
    p.flush();
    waited = Harness::now() - 20.25 * kSlice;
  });
  h.run(1);
  return waited;
}

// Three CPU-bound processes on one CPU; returns when each finished.
std::vector<double> share_one_cpu(sim::Scheduler scheduler)
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = kSlice;
  params.scheduler  = scheduler;
  Harness h(params);
  return finish_times(h, 3, 10 * kSlice);
}
} // namespace

TEST_CASE("CPU: under CFS a process back from sleep goes ahead of the CPU-bound ones", "[cpu]")
{
  // Its sleeper credit puts it first in the queue: it runs when the current slice ends.
  const double waited = wait_after_sleep(sim::Scheduler::Cfs);
  CHECK(waited > 0);
  CHECK(waited <= kSlice + 1e-12);
}

TEST_CASE("CPU: under EEVDF a process back from sleep waits its turn behind the CPU-bound ones", "[cpu]")
{
  // No credit for sleeping: it comes back level with the others, with a deadline a slice ahead,
  // behind the waiting processes' earlier deadlines.
  const double waited = wait_after_sleep(sim::Scheduler::Eevdf);
  INFO("waited " << waited / kSlice << " slices");
  CHECK(waited > kSlice + 1e-12);
  CHECK(waited <= 3 * kSlice + 1e-12);
}

TEST_CASE("CPU: under EEVDF a process that slept owed CPU time comes back ahead", "[cpu]")
{
  // A quarter of a slice while the others each ran one: it left owed more than half a slice, a
  // lag it keeps through the sleep, so it is placed ahead of every waiting process's deadline and
  // runs when the slice under way ends. (With half a slice it would be just behind the hog owed
  // most: the average counts what the running hog has run of its slice, as update_curr() does.)
  CHECK(wait_after_sleep(sim::Scheduler::Eevdf, 0.25) <= kSlice + 1e-12);
}

TEST_CASE("CPU: EEVDF shares one CPU between CPU-bound processes slice by slice", "[cpu]")
{
  // 30 slices of work: each process gets every third slice, so all finish in the last three.
  for (double d : share_one_cpu(sim::Scheduler::Eevdf)) {
    CHECK(d >= 28 * kSlice - 1e-12);
    CHECK(d <= 30 * kSlice + 1e-12);
  }
}

namespace {
struct Ran {
  double at = -1;
  int slot  = -1;
};

// Per-CPU run queues on three CPUs. s runs on CPU 0 until 0.1 ms and sleeps; h0, which found no
// CPU free at 0, then takes CPU 0 until 5.1 ms and h2 holds CPU 2 until 5 ms. At 1 ms w, on CPU 1,
// wakes s (synchronously or not) and sleeps at 1.5 ms. Returns when and where s runs again.
Ran wake_with_no_cpu_idle(bool sync, double migration_cost, sim::RunQueues queues = sim::RunQueues::PerCpu)
{
  auto params           = test::quiet_cpu(3);
  params.time_slice     = 10 * ms;
  params.run_queues     = queues;
  params.migration_cost = migration_cost;
  Harness h(params);
  Proc& s = h.proc("s");
  Ran ran;
  h.start(s, [&](Proc& p) {
    p.work(0.1 * ms * 1e9);
    p.sleep(sim::kCpu);
    p.flush();
    ran = {Harness::now(), p.slot()};
  });
  h.start(h.proc("w"), [&](Proc& p) {
    p.work(1 * ms * 1e9);
    p.flush();
    s.wake(sync);
    p.work(0.5 * ms * 1e9);
    p.sleep(sim::kCpu);
  });
  h.start(h.proc("h2"), [](Proc& p) {
    p.work(5 * ms * 1e9);
    p.flush();
  });
  h.start(h.proc("h0"), [](Proc& p) {
    p.work(5 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  return ran;
}
} // namespace

TEST_CASE("CPU: with per-CPU run queues a woken process waits on its own CPU while cache-hot", "[cpu]")
{
  const Ran ran = wake_with_no_cpu_idle(false, 5 * ms);
  CHECK(ran.at == Approx(5.1 * ms)); // behind h0, though CPU 1 goes idle at 1.5 ms
  CHECK(ran.slot == 0);
}

TEST_CASE("CPU: with per-CPU run queues an idle CPU pulls a waiting process gone cache-cold", "[cpu]")
{
  const Ran ran = wake_with_no_cpu_idle(false, 1 * ms); // s left its CPU 1.4 ms before CPU 1 idles
  CHECK(ran.at == Approx(1.5 * ms));
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: with per-CPU run queues a synchronous wake-up waits on the waker's CPU", "[cpu]")
{
  const Ran ran = wake_with_no_cpu_idle(true, 5 * ms);
  CHECK(ran.at == Approx(1.5 * ms)); // when w sleeps, however hot s is on CPU 0
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: with one run queue the first CPU freed takes the woken process", "[cpu]")
{
  const Ran ran = wake_with_no_cpu_idle(false, 5 * ms, sim::RunQueues::Global);
  CHECK(ran.at == Approx(1.5 * ms));
  CHECK(ran.slot == 1);
}

namespace {
// Two CPUs with per-CPU run queues, placement by wake_placement, 4 ms ticks. s runs 0.1 ms on
// CPU 0 and sleeps until 1 ms; f runs 0.2 ms on CPU 1 and exits, leaving it idle; h, which found
// no CPU free at 0, takes CPU 0 from 0.1 ms to 20.1 ms. Returns when and where s runs again.
sim::CpuParams two_cpus(sim::WakePlacement placement, double migration_cost, int cache_nice_tries = 1)
{
  auto params             = test::quiet_cpu(2);
  params.time_slice       = 50 * ms;
  params.run_queues       = sim::RunQueues::PerCpu;
  params.wake_placement   = placement;
  params.migration_cost   = migration_cost;
  params.balance_tick     = 4 * ms;
  params.cache_nice_tries = cache_nice_tries;
  return params;
}

// s's sleep is a timer's, or with device, a device's (whose interrupt params say where it lands).
Ran wake_with_other_cpu_idle(const sim::CpuParams& params, bool device)
{
  Harness h(params);
  Ran ran;
  h.start(h.proc("s"), [&](Proc& p) {
    p.work(0.1 * ms * 1e9);
    if (device)
      p.await_io(1 * ms, sim::kCpu);
    else
      p.block_until(1 * ms, sim::kCpu);
    p.flush();
    ran = {Harness::now(), p.slot()};
  });
  h.start(h.proc("f"), [](Proc& p) {
    p.work(0.2 * ms * 1e9);
    p.flush();
  });
  h.start(h.proc("h"), [](Proc& p) {
    p.work(20 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  return ran;
}

Ran wake_with_other_cpu_idle(sim::WakePlacement placement, double migration_cost, int cache_nice_tries = 1)
{
  return wake_with_other_cpu_idle(two_cpus(placement, migration_cost, cache_nice_tries), false);
}
} // namespace

TEST_CASE("CPU: placed on an idle CPU, a woken process runs at once wherever it last ran", "[cpu]")
{
  const Ran ran = wake_with_other_cpu_idle(sim::WakePlacement::IdleCpu, 0.5 * ms);
  CHECK(ran.at == Approx(1 * ms));
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: placed on its previous CPU, a woken process waits there until a tick's idle balance pulls it", "[cpu]")
{
  const Ran ran = wake_with_other_cpu_idle(sim::WakePlacement::PreviousCpu, 0.5 * ms);
  CHECK(ran.at == Approx(4 * ms)); // the first tick after 1 ms; s left CPU 0 3.9 ms before
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: a tick's idle balance takes a cache-hot process only after cache_nice_tries failures", "[cpu]")
{
  const Ran ran = wake_with_other_cpu_idle(sim::WakePlacement::PreviousCpu, 50 * ms);
  CHECK(ran.at == Approx(12 * ms)); // the ticks at 4 and 8 ms fail; the third may take a hot one
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: without enough failed balances a cache-hot process waits for its own CPU", "[cpu]")
{
  const Ran ran = wake_with_other_cpu_idle(sim::WakePlacement::PreviousCpu, 50 * ms, 100);
  CHECK(ran.at == Approx(20.1 * ms));
  CHECK(ran.slot == 0);
}

TEST_CASE("CPU: a CPU that goes idle with nothing waiting anywhere resets the count of failed balances", "[cpu]")
{
  // As wake_with_other_cpu_idle() with s cache-hot throughout: the ticks at 4 and 8 ms fail. h
  // leaves CPU 0 at 10.1 ms, s runs there and sleeps at 10.2 ms with nobody waiting (the
  // reset), h takes CPU 0 back at 10.3 ms and s, awake at 10.5 ms, waits behind it again: the
  // ticks at 12 and 16 ms fail anew, and the one at 20 ms takes s to CPU 1.
  Harness h(two_cpus(sim::WakePlacement::PreviousCpu, 50 * ms));
  Ran ran;
  h.start(h.proc("s"), [&](Proc& p) {
    p.work(0.1 * ms * 1e9);
    p.block_until(1 * ms, sim::kCpu);
    p.work(0.1 * ms * 1e9);
    p.block_until(10.5 * ms, sim::kCpu);
    p.flush();
    ran = {Harness::now(), p.slot()};
  });
  h.start(h.proc("f"), [](Proc& p) {
    p.work(0.2 * ms * 1e9);
    p.flush();
  });
  h.start(h.proc("h"), [](Proc& p) {
    p.work(10 * ms * 1e9);
    p.block_until(10.3 * ms, sim::kCpu);
    p.work(20 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  CHECK(ran.at == Approx(20 * ms));
  CHECK(ran.slot == 1);
}

namespace {
// Two CPUs placing wake-ups as wake_affine() does. s runs 0.1 ms on CPU 0, then (if s_wakes_x)
// wakes x, a process asleep from the start, and sleeps; w runs on CPU 1 and at 0.2 ms wakes s,
// synchronously or not, then runs 0.1 ms more and exits. Returns when and where s runs again.
Ran wake_affine_pair(bool s_wakes_x, bool sync)
{
  Harness h(two_cpus(sim::WakePlacement::WakeAffine, 0.5 * ms));
  Ran ran;
  Proc& x = h.proc("x");
  Proc& s = h.proc("s");
  h.start(x, [](Proc& p) { p.sleep(sim::kCpu); });
  h.start(s, [&](Proc& p) {
    p.work(0.1 * ms * 1e9);
    p.flush();
    if (s_wakes_x) x.wake(true);
    p.sleep(sim::kCpu);
    p.flush();
    ran = {Harness::now(), p.slot()};
  });
  h.start(h.proc("w"), [&](Proc& p) {
    p.work(0.2 * ms * 1e9);
    p.flush();
    s.wake(sync);
    p.work(0.1 * ms * 1e9);
    p.flush();
  });
  h.run(1);
  return ran;
}
} // namespace

TEST_CASE("CPU: wake_affine brings a synchronous wake-up to a waker alone on its CPU", "[cpu]")
{
  const Ran ran = wake_affine_pair(false, true);
  CHECK(ran.at == Approx(0.3 * ms)); // once w is done, though CPU 0 is idle from 0.1 ms
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: wake_affine leaves a plain wake-up on the idle CPU the process last ran on", "[cpu]")
{
  const Ran ran = wake_affine_pair(false, false);
  CHECK(ran.at == Approx(0.2 * ms));
  CHECK(ran.slot == 0);
}

TEST_CASE("CPU: a wide wake-up, both processes having woken others, stays on the previous CPU", "[cpu]")
{
  const Ran ran = wake_affine_pair(true, true);
  CHECK(ran.at == Approx(0.2 * ms));
  CHECK(ran.slot == 0);
}

TEST_CASE("CPU: wake_affine wakes a device's waiter on the interrupt's idle CPU when its own is busy", "[cpu]")
{
  // As wake_with_other_cpu_idle(), with s waiting on a device whose interrupts go to CPU 1.
  auto params             = two_cpus(sim::WakePlacement::WakeAffine, 50 * ms);
  params.io_interrupt_cpu = 1;
  const Ran ran           = wake_with_other_cpu_idle(params, true);
  CHECK(ran.at == Approx(1 * ms)); // previous_cpu: at the tick of 12 ms, as s is cache-hot
  CHECK(ran.slot == 1);
}

TEST_CASE("CPU: a process pinned to one CPU waits for it while another CPU idles", "[cpu]")
{
  for (const auto queues : {sim::RunQueues::Global, sim::RunQueues::PerCpu}) {
    auto params       = test::quiet_cpu(2);
    params.time_slice = 50 * ms;
    params.run_queues = queues;
    Harness h(params);
    Ran ran;
    Proc& pinned = h.proc("pinned");
    h.start(h.proc("hog"), [](Proc& p) {
      p.work(2 * ms * 1e9);
      p.flush();
    });
    pinned.set_allowed_cpus({0});
    h.start(pinned, [&](Proc& p) {
      p.work(0.1 * ms * 1e9);
      p.flush();
      ran = {Harness::now(), p.slot()};
    });
    h.run(1);
    CHECK(ran.at == Approx(2.1 * ms)); // behind the hog on CPU 0, though CPU 1 is idle throughout
    CHECK(ran.slot == 0);
    CHECK(h.cpu.migrations() == 0);
  }
}

TEST_CASE("CPU: per-CPU run queues share CPUs among more processes than CPUs", "[cpu]")
{
  auto params       = test::quiet_cpu(2);
  params.time_slice = 1 * ms;
  params.run_queues = sim::RunQueues::PerCpu;
  Harness h(params);
  const std::vector<double> done = finish_times(h, 4, 10 * ms);
  for (double d : done) CHECK(d <= 20 * ms + 1e-9);
  CHECK(h.cpu.busy_seconds(Harness::now()) == Approx(40 * ms));
  CHECK(h.cpu.migrations() == 0); // two to a queue, never pulled: each queue is busy to the end
}

namespace {
// One CPU, CFS, 1 ms slices. A sleeper runs 0.1 ms and sleeps until 10.205 ms; a hog runs from
// 0.1 ms in 10 us pieces (a flush after each), its slices ending at 10.1 ms and 11.1 ms. Returns how
// long the sleeper waited for the CPU once awake, and how many times it preempted the hog. (The
// wake-up falls inside a piece: at a piece's end, which of the two comes first would depend on the
// rounding of the engine's clock, which earlier tests in the process have moved on.)
std::pair<double, std::uint64_t> wait_after_long_sleep(double wakeup_granularity)
{
  auto params               = test::quiet_cpu(1);
  params.time_slice         = 1 * ms;
  params.sleeper_credit     = 6 * ms;
  params.wakeup_preemption  = wakeup_granularity > 0;
  params.wakeup_granularity = wakeup_granularity;
  Harness h(params);
  double waited = -1;
  h.start(h.proc("sleeper"), [&](Proc& p) {
    p.work(0.1 * ms * 1e9);
    p.flush();
    p.block_until(10.205 * ms, sim::kCpu);
    p.flush();
    waited = Harness::now() - 10.205 * ms;
  });
  h.start(h.proc("hog"), [](Proc& p) {
    for (int i = 0; i < 2000; i++) {
      p.work(10 * us * 1e9);
      p.flush();
    }
  });
  h.run(1);
  return {waited, h.cpu.wakeup_preemptions()};
}
} // namespace

TEST_CASE("CPU: without wake-up preemption a woken process waits for the running one's slice to end", "[cpu]")
{
  const auto [waited, preemptions] = wait_after_long_sleep(0);
  CHECK(waited == Approx(0.895 * ms));
  CHECK(preemptions == 0);
}

TEST_CASE("CPU: with CFS's wake-up preemption a process back from a long sleep takes the CPU at the next "
          "flush",
          "[cpu]")
{
  // The hog has run 10 ms since the sleeper last ran: the sleeper is that far behind in virtual
  // runtime, more than the 1 ms granularity, so the hog gives way when its 10 us piece ends.
  const auto [waited, preemptions] = wait_after_long_sleep(1 * ms);
  CHECK(waited == Approx(5 * us)); // the piece ending at 10.21 ms
  CHECK(preemptions == 1);
}

TEST_CASE("CPU: a woken process less than the granularity behind the running one does not preempt it", "[cpu]")
{
  const auto [waited, preemptions] = wait_after_long_sleep(20 * ms);
  CHECK(waited == Approx(0.895 * ms));
  CHECK(preemptions == 0);
}
namespace {
// On one CPU with FIFO turns and 1 ms slices, p runs `first`, then finds nothing to do and calls
// sleep() with `rest` of its work still to run, while a hog waits for the CPU. A waker wakes p at
// wake_at, first yielding once at that instant if yield_first (so that it runs after the actors
// whose own timers end then). Returns when p's sleep returned, or -1 if it never did.
double sleep_returns_at(double first, double rest, double wake_at, bool yield_first)
{
  auto params       = test::quiet_cpu(1);
  params.time_slice = 1 * ms;
  params.scheduler  = sim::Scheduler::Fifo;
  Harness h(params);
  bool ready      = false;
  double returned = -1;
  Proc& p         = h.proc("p");
  h.simulation.spawn("waker", [&]() {
    simgrid::s4u::this_actor::sleep_until(sim::engine_time(wake_at));
    if (yield_first) simgrid::s4u::this_actor::yield();
    ready = true;
    p.wake();
  });
  h.start(p, [&](Proc& self) {
    self.work(first * 1e9);
    self.flush();
    if (!ready) {
      self.work(rest * 1e9);
      self.sleep(sim::kCpu);
    }
    returned = Harness::now();
  });
  h.start(h.proc("hog"), [](Proc& self) {
    self.work(5 * ms * 1e9);
    self.flush();
  });
  h.run(1);
  return returned;
}
} // namespace

TEST_CASE("CPU: a wake-up that comes while the process waits for a CPU inside sleep() is not lost", "[cpu]")
{
  // The work p still has ends its slice inside sleep()'s flush at 1 ms, so it waits for the CPU
  // behind the hog until 2 ms; the wake-up meant for that sleep comes at 1.5 ms. p runs its last
  // 0.4 ms from 2 ms; its sleep then finds the wake-up waiting (having given up the CPU, it waits
  // for the hog's next slice to get it back). Had the wake-up been lost, p would sleep for ever.
  CHECK(sleep_returns_at(0.9 * ms, 0.5 * ms, 1.5 * ms, false) == Approx(3.4 * ms));
}

TEST_CASE("CPU: a wake-up that comes while the process still runs survives its preemption before it sleeps", "[cpu]")
{
  // p calls sleep() at 0.5 ms with 1 ms of work still to run. The wake-up meant for that sleep
  // comes at 0.7 ms while p runs; at 1 ms p's slice ends with the hog waiting, so p waits for the
  // CPU until 2 ms before it can go to sleep. The wake-up must still be there when it does: p runs
  // its last 0.5 ms from 2 ms, its sleep returns at once, and it waits for the CPU again through
  // the hog's next slice, to 3.5 ms. Had the wait for the CPU used up the wake-up, p would sleep
  // for ever.
  CHECK(sleep_returns_at(0.5 * ms, 1 * ms, 0.7 * ms, false) == Approx(3.5 * ms));
}

TEST_CASE("CPU: a wake-up at the instant the run queue grants the CPU is not lost", "[cpu]")
{
  // As above, but the wake-up comes at 2 ms, when the hog's slice ends and it hands p the CPU.
  // Handing it over wakes p through a simcall, answered only once the other actors ready at that
  // instant have run: the waker, which yields once so that it runs then. Its wake-up must count as
  // one meant for the sleep, not as part of the grant.
  CHECK(sleep_returns_at(0.5 * ms, 1 * ms, 2 * ms, true) == Approx(3.5 * ms));
}

namespace {
// One CPU, EEVDF, 1 ms slices, with or without wake-up preemption. A hog runs in 10 us pieces (a
// flush after each) and a sleeper runs 0.1 ms, then sleeps until wake_at. With the hog started
// first, the sleeper waits behind it and runs from the end of the hog's first slice; else it runs
// first. Returns how long the sleeper waited for the CPU once awake, and how many times it
// preempted the hog.
std::pair<double, std::uint64_t> eevdf_wait_after_sleep(bool preemption, bool hog_first, double wake_at)
{
  auto params              = test::quiet_cpu(1);
  params.time_slice        = 1 * ms;
  params.scheduler         = sim::Scheduler::Eevdf;
  params.wakeup_preemption = preemption;
  Harness h(params);
  double waited = -1;
  auto hog      = [](Proc& p) {
    for (int i = 0; i < 3000; i++) {
      p.work(10 * us * 1e9);
      p.flush();
    }
  };
  auto sleeper = [&waited, wake_at](Proc& p) {
    p.work(0.1 * ms * 1e9);
    p.flush();
    p.block_until(wake_at, sim::kCpu);
    waited = Harness::now() - wake_at;
  };
  Proc& first  = h.proc(hog_first ? "hog" : "sleeper");
  Proc& second = h.proc(hog_first ? "sleeper" : "hog");
  h.start(first, hog_first ? std::function<void(Proc&)>(hog) : std::function<void(Proc&)>(sleeper));
  h.start(second, hog_first ? std::function<void(Proc&)>(sleeper) : std::function<void(Proc&)>(hog));
  h.run(1);
  return {waited, h.cpu.wakeup_preemptions()};
}
} // namespace

TEST_CASE("CPU: with EEVDF's wake-up preemption a woken process owed CPU time takes the CPU at the next flush", "[cpu]")
{
  // The sleeper leaves at 1.1 ms having run 0.1 ms to the hog's 1 ms: it is owed 0.45 ms and keeps
  // that lag through its sleep. Back at 1.6 ms it is placed behind the average by it, which leaves
  // the hog ahead of the average, no longer eligible: its slice protection ends, and the sleeper,
  // eligible with the earliest deadline, is the pick. The hog gives way when its 10 us piece ends.
  // (Waking mid-piece: at 1.6 ms itself a piece ends too, and which of the two the engine runs
  // first at that instant is arbitrary.)
  const auto [waited, preemptions] = eevdf_wait_after_sleep(true, true, 1.605 * ms);
  CHECK(waited == Approx(5 * us));
  CHECK(preemptions == 1);
}

TEST_CASE("CPU: without wake-up preemption, under EEVDF the same process waits for the running one's slice to end",
          "[cpu]")
{
  const auto [waited, preemptions] = eevdf_wait_after_sleep(false, true, 1.6 * ms);
  CHECK(waited == Approx(0.5 * ms)); // the slice the hog began at 1.1 ms
  CHECK(preemptions == 0);
}

TEST_CASE("CPU: with EEVDF a woken process that had overdrawn its share does not preempt, however long it slept",
          "[cpu]")
{
  // The sleeper ran 0.1 ms alone before the hog ran at all, so it left owing CPU time. Back at
  // 20 ms it gets no credit for its sleep: placed at the average, it leaves the hog eligible and
  // inside its request (the one begun at 19.1 ms), which RUN_TO_PARITY protects to its end. Under
  // CFS the sleeper credit would have let it preempt.
  const auto [waited, preemptions] = eevdf_wait_after_sleep(true, false, 20 * ms);
  CHECK(waited == Approx(0.1 * ms).margin(0.1 * us));
  CHECK(preemptions == 0);
}

namespace {
struct IoWait {
  double ran;          // when the waiting process ran again
  double wakeup_delay; // from the completion reaching it to running
};
// On two CPUs, a process waits for a device request that completes at 100 us while `spinners`
// processes have CPU work until `busy_until`.
IoWait io_wait(int spinners, double busy_until, double busy_io_delay)
{
  sim::CpuParams params = test::quiet_cpu(2);
  params.busy_io_delay  = busy_io_delay;
  Harness h(params);
  sim::WaitEventNames names;
  const sim::WaitEventId io = names.intern("IO:WALSync");
  double ran                = -1;
  h.start(h.proc("backend"), [&](Proc& p) {
    p.await_io(100 * us, io);
    p.flush();
    ran = Harness::now();
  });
  for (int i = 0; i < spinners; i++)
    h.start(h.proc("spinner " + std::to_string(i)), [busy_until](Proc& p) {
      p.stall(busy_until);
      p.flush();
    });
  h.run(1);
  return {ran, h.cpu.switches_by_kind().at("backend").wakeup_delay};
}
} // namespace

TEST_CASE("CPU: in a VM a device request that completes while every CPU is busy waits for one to idle", "[cpu]")
{
  // Both CPUs busy until 300 us: the host preempts a vCPU for the completion after 50 us, and the
  // process then waits in the run queue until 300 us.
  const IoWait capped = io_wait(2, 300 * us, 50 * us);
  CHECK(capped.ran == Approx(300 * us));
  CHECK(capped.wakeup_delay == Approx(150 * us));
  // Busy until 120 us only: the completion arrives when a vCPU idles (the poll is 2 us).
  CHECK(io_wait(2, 120 * us, 50 * us).ran == Approx(120 * us).margin(2 * us));
  // A CPU idle at the completion, or bare metal: no delay.
  CHECK(io_wait(1, 300 * us, 50 * us).ran == Approx(100 * us));
  CHECK(io_wait(2, 300 * us, 0).wakeup_delay == Approx(200 * us));
}

namespace {
// One CPU with 100 us slices: a process makes a 150 us system call timed as PostgreSQL times it,
// beside `others` processes that want the CPU for a millisecond.
double timed_write(int others)
{
  sim::CpuParams params = test::quiet_cpu(1);
  params.time_slice     = 100 * us;
  params.scheduler      = sim::Scheduler::Fifo; // slice for slice, in turn
  Harness h(params);
  sim::WaitEventNames names;
  const sim::WaitEventId write = names.intern("IO:WALWrite");
  double elapsed               = -1;
  h.start(h.proc("backend"), [&](Proc& p) { elapsed = p.timed_syscall(150 * us, write); });
  for (int i = 0; i < others; i++)
    h.start(h.proc("other " + std::to_string(i)), [](Proc& p) {
      p.stall(1 * ms);
      p.flush();
    });
  h.run(1);
  return elapsed;
}
} // namespace

TEST_CASE("CPU: a timed system call counts the wall time, a wait for the CPU in the middle included", "[cpu]")
{
  CHECK(timed_write(0) == Approx(150 * us));
  // Its slice ends 100 us in with another process waiting, which runs a slice before it resumes.
  CHECK(timed_write(1) == Approx(250 * us));
}

namespace {
struct Interrupted {
  double backend_ran; // when the process waiting for the device ran again
  double spinner_done;
  std::uint64_t busy_interrupts;
};
// On two CPUs, a process waits for a device request that completes at 100 us while a spinner on
// the other CPU has 300 us of work; the completion interrupts CPU `irq_cpu`.
Interrupted interrupted(int irq_cpu, double cost)
{
  sim::CpuParams params    = test::quiet_cpu(2);
  params.io_interrupt_cpu  = irq_cpu;
  params.busy_io_interrupt = cost;
  Harness h(params);
  sim::WaitEventNames names;
  const sim::WaitEventId io = names.intern("IO:WALSync");
  Interrupted r{-1, -1, 0};
  Proc& backend = h.proc("backend");
  Proc& spinner = h.proc("spinner");
  h.start(backend, [&](Proc& p) {
    p.stall(10 * us); // holding CPU 0 while the spinner starts
    p.flush();
    p.await_io(100 * us, io);
    p.flush();
    r.backend_ran = Harness::now();
  });
  h.start(spinner, [&](Proc& p) {
    p.stall(300 * us);
    p.flush();
    p.flush(); // a stall the interrupt added meanwhile is taken at the next flush
    r.spinner_done = Harness::now();
  });
  h.run(1);
  CHECK(spinner.slot() == 1);
  r.busy_interrupts = h.cpu.busy_interrupts();
  return r;
}
} // namespace

TEST_CASE("CPU: a device completion that interrupts a busy CPU stalls its process and reaches the waiter later",
          "[cpu]")
{
  // The spinner holds CPU 1: the handler's 30 us are taken from it, and the waiter is woken after.
  const Interrupted busy = interrupted(1, 30 * us);
  CHECK(busy.backend_ran == Approx(130 * us));
  CHECK(busy.spinner_done == Approx(330 * us));
  CHECK(busy.busy_interrupts == 1);
  // The interrupt lands on the waiter's own CPU, idle while it waits: nothing beyond the wake-up.
  const Interrupted idle = interrupted(0, 30 * us);
  CHECK(idle.backend_ran == Approx(100 * us));
  CHECK(idle.spinner_done == Approx(300 * us));
  CHECK(idle.busy_interrupts == 0);
  // A CPU the model does not have (none of its processes runs there), or interrupts not modelled.
  CHECK(interrupted(5, 30 * us).spinner_done == Approx(300 * us));
  CHECK(interrupted(-1, 30 * us).backend_ran == Approx(100 * us));
  CHECK(interrupted(1, 0).spinner_done == Approx(300 * us));
}
