/* Run control: running scripts to completion, and deadlocks reported instead of hidden. */
#include "sim/lwlock.hpp"
#include "sim/simulation.hpp"
#include "sim_harness.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

using sim::LWLock;
using sim::LWLockMode;
using sim::Proc;
using test::at;
using test::Harness;

namespace {

constexpr double ms               = 1e-3;
const sim::WaitEventId kLockEvent = 1;

sim::LWLockParams free_params()
{
  sim::LWLockParams p;
  p.list_hold = 0;
  p.wake_cost = 0;
  return p;
}

/// Collects what is written to std::cerr while it lives.
class CaptureCerr {
public:
  CaptureCerr() : saved_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CaptureCerr() { std::cerr.rdbuf(saved_); }
  CaptureCerr(const CaptureCerr&)            = delete;
  CaptureCerr& operator=(const CaptureCerr&) = delete;
  std::string text() const { return text_.str(); }

private:
  std::ostringstream text_;
  std::streambuf* saved_;
};

void describe(std::ostream& out, const LWLock& lock)
{
  out << lock.name() << " held by " << (lock.exclusive_holder() ? lock.exclusive_holder()->name() : "nobody")
      << ", waited for by";
  for (const Proc* waiter : lock.wait_queue()) out << " " << waiter->name();
  out << "\n";
}

// Takes `mine`, then at 1 ms wants `theirs` too.
void lock_in_order(Proc& p, LWLock& mine, LWLock& theirs)
{
  mine.acquire(p, LWLockMode::Exclusive);
  at(p, 1 * ms);
  theirs.acquire(p, LWLockMode::Exclusive);
  theirs.release(p);
  mine.release(p);
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

/// The simulated time as reports print it. The scripted times below are met within the CPU's
/// own wake-up costs, which these tests do not pin down.
std::string report_time()
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", Harness::now());
  return buf;
}

constexpr double kSlack = 0.1 * ms;

} // namespace

TEST_CASE("Simulation: a run to completion ends when the last actor returns", "[simulation]")
{
  Harness h(test::quiet_cpu(2));
  bool hook_ran = false;
  h.simulation.on_deadlock([&](std::ostream&) { hook_ran = true; });
  h.start(h.proc("short"), [](Proc& p) { at(p, 2 * ms); });
  h.start(h.proc("long"), [](Proc& p) { at(p, 5 * ms); });
  h.simulation.run_to_completion();
  CHECK(Harness::now() == Approx(5 * ms).margin(kSlack));
  CHECK_FALSE(h.simulation.deadlocked());
  CHECK_FALSE(hook_ran);
}

TEST_CASE("Simulation: a second simulation in the same process starts its time at 0", "[simulation]")
{
  // SimGrid keeps its clock across engines; walsim's time must not.
  double second_started = -1;
  double second_woke    = -1;
  {
    Harness first(test::quiet_cpu(1));
    first.start(first.proc("p"), [](Proc& p) { at(p, 3 * ms); });
    first.simulation.run_to_completion();
  }
  Harness second(test::quiet_cpu(1));
  second.start(second.proc("p"), [&](Proc& p) {
    second_started = Harness::now();
    at(p, 2 * ms);
    second_woke = Harness::now();
  });
  second.simulation.run_to_completion();
  CHECK(second_started == 0);
  CHECK(second_woke == Approx(2 * ms).margin(kSlack));
}

TEST_CASE("Simulation: two processes deadlocked on two LWLocks are reported with holders and waiters", "[simulation]")
{
  Harness h(test::quiet_cpu(2));
  LWLock first("FirstLock", kLockEvent, free_params());
  LWLock second("SecondLock", kLockEvent, free_params());
  int hook_calls = 0;
  h.simulation.on_deadlock([&](std::ostream& out) {
    hook_calls++;
    describe(out, first);
    describe(out, second);
  });
  h.start(h.proc("A"), [&](Proc& p) { lock_in_order(p, first, second); });
  h.start(h.proc("B"), [&](Proc& p) { lock_in_order(p, second, first); });

  std::string report;
  {
    CaptureCerr capture;
    CHECK_THROWS_AS(h.simulation.run_to_completion(), sim::Deadlock);
    report = capture.text();
  }
  INFO(report);
  CHECK(hook_calls == 1);
  CHECK(h.simulation.deadlocked());
  CHECK(Harness::now() == Approx(1 * ms).margin(kSlack));
  CHECK(contains(report, "walsim: DEADLOCK at simulated time " + report_time() + " s: every actor waits"));
  CHECK(contains(report, "actors still alive: A B\n"));
  CHECK(contains(report, "FirstLock held by A, waited for by B\n"));
  CHECK(contains(report, "SecondLock held by B, waited for by A\n"));
}

TEST_CASE("Simulation: the exception of a deadlocked run says when it deadlocked", "[simulation]")
{
  Harness h(test::quiet_cpu(1));
  LWLock lock("SelfLock", kLockEvent, free_params());
  h.start(h.proc("A"), [&](Proc& p) {
    lock.acquire(p, LWLockMode::Exclusive);
    at(p, 3 * ms);
    lock.acquire(p, LWLockMode::Exclusive); // self-deadlock: an LWLock is not re-entrant
  });
  CaptureCerr capture;
  try {
    h.simulation.run_to_completion();
    FAIL("no deadlock reported");
  } catch (const std::logic_error& e) {
    CHECK(Harness::now() == Approx(3 * ms).margin(kSlack));
    CHECK(contains(e.what(), "deadlocked at simulated time " + report_time() + " s"));
  }
}

TEST_CASE("Simulation: a deadlock declared by an actor ends a bounded run and run throws", "[simulation]")
{
  Harness h(test::quiet_cpu(2));
  bool hook_ran      = false;
  bool survivor_woke = false;
  bool window_ended  = false;
  h.simulation.on_deadlock([&](std::ostream& out) {
    hook_ran = true;
    out << "wait-for graph: A -> B -> A\n";
  });
  h.start(h.proc("detector"), [](Proc& p) {
    at(p, 2 * ms);
    sim::Simulation::declare_deadlock("a wait-for cycle between A and B");
  });
  h.start(h.proc("sleeper"), [&](Proc& p) {
    at(p, 500 * ms);
    survivor_woke = true;
  });
  sim::Window w;
  w.duration = 1;
  std::string report;
  {
    CaptureCerr capture;
    CHECK_THROWS_AS(h.simulation.run(w, nullptr, nullptr, [&]() { window_ended = true; }), sim::Deadlock);
    report = capture.text();
  }
  INFO(report);
  CHECK(hook_ran);
  CHECK_FALSE(survivor_woke);
  CHECK_FALSE(window_ended);
  CHECK(Harness::now() == Approx(2 * ms).margin(kSlack));
  CHECK(contains(report,
                 "walsim: DEADLOCK at simulated time " + report_time() + " s: a wait-for cycle between A and B\n"));
  CHECK(contains(report, "wait-for graph: A -> B -> A\n"));
}

TEST_CASE("Simulation: a hook that throws does not hide the rest of the report", "[simulation]")
{
  Harness h(test::quiet_cpu(1));
  bool second_hook_ran = false;
  h.simulation.on_deadlock([](std::ostream&) { throw std::runtime_error("broken hook"); });
  h.simulation.on_deadlock([&](std::ostream&) { second_hook_ran = true; });
  LWLock lock("SelfLock", kLockEvent, free_params());
  h.start(h.proc("A"), [&](Proc& p) {
    lock.acquire(p, LWLockMode::Exclusive);
    lock.acquire(p, LWLockMode::Exclusive);
  });
  std::string report;
  {
    CaptureCerr capture;
    CHECK_THROWS_AS(h.simulation.run_to_completion(), sim::Deadlock);
    report = capture.text();
  }
  CHECK(second_hook_ran);
  CHECK(contains(report, "(a deadlock report hook failed: broken hook)"));
}

TEST_CASE("Simulation: an exception inside an actor ends the run and comes out of run()", "[simulation]")
{
  Harness h(test::quiet_cpu(2));
  bool other_finished = false;
  h.start(h.proc("thrower"), [](Proc& p) {
    at(p, 1 * ms);
    throw std::logic_error("a model invariant broke");
  });
  h.start(h.proc("bystander"), [&](Proc& p) {
    at(p, 10 * ms);
    other_finished = true;
  });
  CHECK_THROWS_WITH(h.simulation.run_to_completion(), "a model invariant broke");
  CHECK(Harness::now() == Approx(1 * ms).margin(kSlack));
  CHECK_FALSE(other_finished);
}
