/* The CLOG group status update (clog.c TransactionGroupUpdateXidStatus, PostgreSQL 11+; the 2016
 * "Speed up Clog Access" patch) and the ProcArray group xid clearing it was modelled on
 * (procarray.c ProcArrayGroupClearXid, 9.6+), on scripted interleavings: a backend holds
 * CLogControlLock (XactSLRULock) while others commit. */
#include "models/backend.hpp"
#include "models/clog.hpp"
#include "models/procarray.hpp"
#include "models/xlog.hpp"
#include "sim_harness.hpp"
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr double us = 1e-6;

/// The transaction rig with the group policies chosen and a status set slow enough to see.
struct ClogRig : test::TxnRig {
  static pg::Scenario scenario(bool group_update, double clog_set_ns)
  {
    pg::Scenario s                   = test::rig_scenario(1024);
    s.hardware.cpu.cores_per_socket  = 8;
    s.policies.clog_group_update     = group_update;
    s.policies.procarray_group_clear = group_update;
    s.costs.clog_set                 = clog_set_ns;
    s.costs.procarray_end            = clog_set_ns;
    return s;
  }

  ClogRig(bool group_update, double clog_set_ns, int nbackends) : TxnRig(scenario(group_update, clog_set_ns), nbackends)
  {
  }

  void start(int i, std::function<void(pg::Backend&)> body)
  {
    pg::Backend& b = *backends[static_cast<std::size_t>(i)];
    simulation.spawn(b.proc.name(), [&b, body]() {
      body(b);
      b.proc.exit();
    });
  }
  void run()
  {
    sim::Window w;
    w.warmup   = 0;
    w.duration = 1.0;
    simulation.run(w, nullptr, nullptr, nullptr);
  }
};

constexpr double kHoldUntil = 100 * us; // the lock holder releases CLogControlLock then
constexpr double kClogSetNs = 20000;    // 20 us per status set, so the leader's work is visible

/// What the scripted run observed.
struct Observed {
  std::vector<double> returned_at;  // when each committer's TransactionIdSetTreeStatus returned
  std::vector<bool> status_set;     // whether its status was in the CLOG by then
  std::vector<bool> others_set;     // whether every committer's status was in the CLOG by then
  std::uint64_t exacq          = 0; // CLogControlLock exclusive acquisitions
  std::uint64_t blk            = 0;
  std::uint64_t group_updates  = 0;
  std::uint64_t group_members  = 0;
  double first_waiter_set_from = 0; // earliest moment a waiter's status can have been set
};

/// Backend 0 holds CLogControlLock exclusively until kHoldUntil; backends 1..n commit
/// transactions 3..n+2 at 10, 20, 30 ... us, while it is held.
Observed commit_while_held(bool group_update, int committers)
{
  ClogRig rig(group_update, kClogSetNs, committers + 1);
  Observed o;
  o.returned_at.assign(static_cast<std::size_t>(committers), 0);
  o.status_set.assign(static_cast<std::size_t>(committers), false);
  o.others_set.assign(static_cast<std::size_t>(committers), false);
  std::vector<pg::TransactionId> xids;
  for (int i = 0; i < committers; i++) xids.push_back(pg::FirstNormalTransactionId + static_cast<pg::TransactionId>(i));

  rig.start(0, [&](pg::Backend& b) {
    rig.clog.lock().acquire(b.proc, sim::LWLockMode::Exclusive);
    test::at(b.proc, kHoldUntil);
    rig.clog.lock().release(b.proc);
    b.proc.flush();
  });
  for (int i = 0; i < committers; i++) {
    rig.start(i + 1, [&, i](pg::Backend& b) {
      test::at(b.proc, (10.0 + 10.0 * i) * us);
      const auto me = static_cast<std::size_t>(i);
      rig.clog.TransactionIdSetTreeStatus(b, xids[me], pg::XidStatus::Committed, 0);
      b.proc.flush();
      o.returned_at[me] = sim::Simulation::now();
      o.status_set[me]  = rig.clog.peek(xids[me]) == pg::XidStatus::Committed;
      bool all          = true;
      for (pg::TransactionId x : xids) all = all && rig.clog.peek(x) == pg::XidStatus::Committed;
      o.others_set[me] = all;
    });
  }
  rig.run();
  const auto& st  = rig.clog.lock().stats();
  o.exacq         = st.exacq;
  o.blk           = st.blk;
  o.group_updates = rig.clog.stats().group_updates;
  o.group_members = rig.clog.stats().group_members;
  return o;
}

} // namespace

TEST_CASE("clog group update: committers that find CLogControlLock held queue behind one leader", "[clog_group]")
{
  const Observed o = commit_while_held(true, 4);
  // The first committer becomes the leader, the other three queue on its group.
  CHECK(o.group_updates == 1);
  CHECK(o.group_members == 3);
  for (bool set : o.status_set) CHECK(set);
  // Every member's status is set together with the leader's, under one acquisition.
  for (bool all : o.others_set) CHECK(all);
}

TEST_CASE("clog group update: the leader sets every queued status under one exclusive acquisition", "[clog_group]")
{
  const Observed group = commit_while_held(true, 4);
  const Observed plain = commit_while_held(false, 4);
  // The holder's acquisition plus one for the whole group, against one per committer; page 0 is
  // not resident, so whoever sets the first status takes the lock once more after reading it in.
  CHECK(group.exacq == 3);
  CHECK(plain.exacq == 6);
  CHECK(plain.group_updates == 0);
  // Only the leader sleeps on the lock; without grouping every committer does (some twice, when
  // a woken waiter finds the lock taken again).
  CHECK(group.blk == 1);
  CHECK(plain.blk >= 4);
}

TEST_CASE("clog group update: members are woken only after the leader has set their status", "[clog_group]")
{
  const int n      = 4;
  const Observed o = commit_while_held(true, n);
  // The leader gets the lock at kHoldUntil and then sets n statuses at 20 us each: no committer,
  // leader or member, may go on before all n are set (a member woken when the leader's work had
  // merely been accrued would return at kHoldUntil).
  const double all_set = kHoldUntil + n * kClogSetNs * 1e-9;
  for (double t : o.returned_at) CHECK(t >= all_set - 1e-9);
  // ... and they go on soon after: within the leader's page read and wake-up costs.
  for (double t : o.returned_at) CHECK(t < all_set + 30 * us);
}

TEST_CASE("clog group update: without it each committer sets its own status in turn", "[clog_group]")
{
  const int n      = 4;
  const Observed o = commit_while_held(false, n);
  // One after another once the holder lets go: the k-th returns after k status sets.
  std::vector<double> sorted = o.returned_at;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < n; k++)
    CHECK(sorted[static_cast<std::size_t>(k)] >= kHoldUntil + (k + 1) * kClogSetNs * 1e-9 - 1e-9);
}

TEST_CASE("procarray group clear: members are woken only after the leader has cleared their xid",
          "[clog_group][procarray]")
{
  const int n = 4;
  ClogRig rig(true, kClogSetNs, n + 1);
  std::vector<double> returned(static_cast<std::size_t>(n), 0);
  std::vector<bool> cleared(static_cast<std::size_t>(n), false);
  std::vector<pg::TransactionId> xids(static_cast<std::size_t>(n), pg::InvalidTransactionId);
  rig.start(0, [&](pg::Backend& b) {
    rig.procarray.lock().acquire(b.proc, sim::LWLockMode::Exclusive);
    test::at(b.proc, kHoldUntil);
    rig.procarray.lock().release(b.proc);
    b.proc.flush();
  });
  for (int i = 0; i < n; i++) {
    rig.start(i + 1, [&, i](pg::Backend& b) {
      const auto me = static_cast<std::size_t>(i);
      test::at(b.proc, (1.0 + i) * us);
      xids[me] = rig.procarray.GetNewTransactionId(b);
      test::at(b.proc, (20.0 + 10.0 * i) * us);
      rig.procarray.ProcArrayEndTransaction(b);
      b.proc.flush();
      returned[me] = sim::Simulation::now();
      cleared[me]  = rig.procarray.holder_of(xids[me]) == nullptr;
    });
  }
  rig.run();
  const double all_cleared = kHoldUntil + n * kClogSetNs * 1e-9;
  for (bool c : cleared) CHECK(c);
  for (double t : returned) CHECK(t >= all_cleared - 1e-9);
  for (double t : returned) CHECK(t < all_cleared + 30 * us);
  // The holder's acquisition plus one for the whole group.
  CHECK(rig.procarray.lock().stats().exacq == 2);
}
