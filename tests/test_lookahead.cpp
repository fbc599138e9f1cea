/* Running CPU work without an engine sleep (sim/lookahead.hpp): only when no other process could
 * act before the work ends, so that nothing any process observes changes. */
#include "sim/lookahead.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

namespace {
constexpr double us = 1e-6;

// One process alone, flushing 1 us of work `pieces` times; returns when it is done.
double lone_process(int pieces)
{
  test::Harness h(test::quiet_cpu(2));
  sim::Proc& backend = h.proc("backend 0");
  double done        = -1;
  h.start(backend, [&](sim::Proc& p) {
    for (int i = 0; i < pieces; i++) {
      p.stall(1 * us);
      p.flush();
    }
    done = test::Harness::now();
  });
  h.run(1e-3);
  return done;
}
} // namespace

TEST_CASE("Lookahead: a process alone runs its work without engine sleeps", "[lookahead]")
{
  CHECK(lone_process(100) == Approx(100 * us));
  const sim::lookahead::SkipCounts counts = sim::lookahead::skip_counts();
  CHECK(counts.asked == 100);
  // All but the first: at time 0 the run's control actor has not started yet.
  CHECK(counts.skipped == 99);
}

TEST_CASE("Lookahead: work is not run past another process's timed wait", "[lookahead]")
{
  test::Harness h(test::quiet_cpu(2));
  sim::Proc& writer = h.proc("backend 0");
  sim::Proc& reader = h.proc("psql sampler");
  bool written      = false;
  double seen_at    = -1;
  bool seen_written = true;
  h.start(writer, [&](sim::Proc& p) {
    p.stall(10 * us);
    p.flush();
    written = true;
  });
  h.start(reader, [&](sim::Proc& p) {
    test::at(p, 5 * us);
    seen_at      = test::Harness::now();
    seen_written = written;
  });
  h.run(1e-3);
  CHECK(seen_at == Approx(5 * us));
  CHECK_FALSE(seen_written);
  CHECK(written);
}

TEST_CASE("Lookahead: a woken process runs before its waker's work is run ahead", "[lookahead]")
{
  test::Harness h(test::quiet_cpu(2));
  sim::Proc& waker  = h.proc("backend 0");
  sim::Proc& sleepy = h.proc("backend 1");
  bool done         = false;
  double woke_at    = -1;
  bool saw_done     = true;
  h.start(sleepy, [&](sim::Proc& p) {
    p.sleep(sim::kCpu);
    woke_at  = test::Harness::now();
    saw_done = done;
  });
  h.start(waker, [&](sim::Proc& p) {
    test::at(p, 1 * us);
    sleepy.wake();
    p.stall(10 * us);
    p.flush();
    done = true;
  });
  h.run(1e-3);
  CHECK(woke_at == Approx(1 * us));
  CHECK_FALSE(saw_done);
  CHECK(done);
}

TEST_CASE("Lookahead: WALSIM_NO_SKIP=1 turns skipping off", "[lookahead]")
{
  REQUIRE(setenv("WALSIM_NO_SKIP", "1", 1) == 0);
  const double done = lone_process(10);
  unsetenv("WALSIM_NO_SKIP");
  CHECK(done == Approx(10 * us));
  CHECK(sim::lookahead::skip_counts().asked == 10);
  CHECK(sim::lookahead::skip_counts().skipped == 0);
}

TEST_CASE("Lookahead: a wait too short to move the engine's clock still reaches its time", "[lookahead]")
{
  // Each simulation's time counts from where the engine's clock stood when it began: 52 s here.
  // A process polling until a deadline (as a device completion waits for an idle CPU) must see
  // it reached even when the deadline and the present are the same instant to the engine.
  {
    test::Harness before(test::quiet_cpu(1));
    before.run(52);
  }
  test::Harness h(test::quiet_cpu(1));
  double reached = -1;
  double target  = -1;
  int polls      = 0;
  h.start(h.proc("poller"), [&](sim::Proc& p) {
    test::at(p, 1 * us);
    target = test::Harness::now() + 1e-19; // below the engine clock's resolution at 52 s
    while (test::Harness::now() < target && polls < 10) {
      polls++;
      sim::lookahead::sleep_until(target);
    }
    reached = test::Harness::now();
  });
  h.run(1e-3);
  CHECK(polls == 1);
  CHECK(reached >= target);
}
