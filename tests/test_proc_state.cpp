/* What another process sees of a process whose accrued work is still being simulated: the state
 * it had at the reader's time, not the one its script has already reached. */
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

namespace {
constexpr double us = 1e-6;
}

TEST_CASE("Proc: a reader sees the state a running process had at the reader's time", "[proc]")
{
  test::Harness h(test::quiet_cpu(2));
  sim::WaitEventNames names;
  const sim::WaitEventId sync = names.intern("IO:WALSync");
  sim::Proc& backend          = h.proc("backend 0");
  sim::Proc& reader           = h.proc("psql sampler");
  struct Seen {
    bool active;
    sim::WaitEventId event;
  };
  std::vector<Seen> seen;
  h.start(backend, [&](sim::Proc& p) {
    // All of this is accrued at time 0 and simulated by the one flush: active for 10 us, then
    // idle, with 20 us of a system call reported under IO:WALSync after that.
    p.set_active(true);
    p.stall(10 * us);
    p.set_active(false);
    p.syscall(20 * us, sync);
    p.flush();
  });
  h.start(reader, [&](sim::Proc& p) {
    for (double t : {5 * us, 15 * us, 35 * us}) {
      test::at(p, t);
      seen.push_back({backend.active_at(test::Harness::now()), backend.wait_event_at(test::Harness::now())});
    }
  });
  h.run(1e-3);
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].active);
  CHECK(seen[0].event == sim::kCpu);
  CHECK_FALSE(seen[1].active);
  CHECK(seen[1].event == sync);
  CHECK_FALSE(seen[2].active);
  CHECK(seen[2].event == sim::kCpu);
}
