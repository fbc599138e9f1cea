/* commit_delay and commit_siblings in XLogFlush (PostgreSQL 15): the backend about to flush
 * sleeps commit_delay first, but only while at least commit_siblings *other* backends are in a
 * transaction with an xid and not waiting on a heavyweight lock (MinimumActiveBackends). The
 * sleep is pg_usleep's select(), which Linux ends at the end of the timer's slack. */
#include "txn_rig.hpp"

#include "models/pgsleep.hpp"

#include <catch2/catch.hpp>

using pg::Backend;
using test::TxnRig;

namespace {
constexpr double us = 1e-6;

struct Others {
  int in_transaction  = 0; // with an xid assigned
  int waiting_on_lock = 0; // with an xid, but blocked on a lock
  int idle            = 0; // no xid
};

// How long one backend's XLogFlush of a fresh record takes at t = 1 ms, with the given
// commit_delay and commit_siblings, while the others sit as told.
double flush_takes(double commit_delay, int siblings, const Others& others, double timer_slack = 50 * us)
{
  pg::Scenario s             = test::flush_scenario(8);
  s.settings.commit_delay    = commit_delay;
  s.settings.commit_siblings = siblings;
  s.hardware.os.timer_slack  = timer_slack;
  const int n                = 1 + others.in_transaction + others.waiting_on_lock + others.idle;
  TxnRig rig(s, n);
  rig.xlog.set_active_backends(
      [&rig](const Backend& me, int min) { return rig.procarray.MinimumActiveBackends(&me, min); });
  double took = -1;
  std::vector<std::function<void(Backend&)>> scripts;
  scripts.emplace_back([&](Backend& me) {
    rig.procarray.GetNewTransactionId(me);
    test::at(me.proc, 1e-3);
    const double start       = TxnRig::now();
    const pg::XLogRecPtr end = rig.xlog.XLogInsert(me, pg::XLogRecordData{100, 0});
    rig.xlog.XLogFlush(me, end);
    took = TxnRig::now() - start;
  });
  const auto other = [&rig](bool with_xid, bool blocked) {
    return [&rig, with_xid, blocked](Backend& me) {
      if (with_xid) rig.procarray.GetNewTransactionId(me);
      me.waiting_on_lock = blocked;
      test::at(me.proc, 5e-3);
      me.waiting_on_lock = false;
    };
  };
  for (int i = 0; i < others.in_transaction; i++) scripts.emplace_back(other(true, false));
  for (int i = 0; i < others.waiting_on_lock; i++) scripts.emplace_back(other(true, true));
  for (int i = 0; i < others.idle; i++) scripts.emplace_back(other(false, false));
  rig.run(scripts);
  return took;
}

// What commit_delay = 300 us adds to that flush: 350 us (pg_usleep's select() expires at the end
// of Linux's 50 us timer slack; and the wake-up after the sleep) or 0.
double delay_added(int siblings, const Others& others)
{
  return flush_takes(300 * us, siblings, others) - flush_takes(0, siblings, others);
}

const auto slept   = Approx(350 * us).margin(10 * us);
const auto noSleep = Approx(0).margin(1e-9);
} // namespace

TEST_CASE("commit_delay: the flusher sleeps first once commit_siblings others are in a transaction", "[xlog]")
{
  CHECK(delay_added(2, Others{2, 0, 0}) == slept);
  CHECK(delay_added(0, Others{}) == slept); // commit_siblings 0: always
}

TEST_CASE("commit_delay: the flusher does not count itself among the siblings", "[xlog]")
{
  // Two backends in a transaction, the flusher one of them: one sibling, not two.
  CHECK(delay_added(2, Others{1, 0, 0}) == noSleep);
  CHECK(delay_added(1, Others{1, 0, 0}) == slept);
}

TEST_CASE("commit_delay: backends without an xid or waiting on a lock are not siblings", "[xlog]")
{
  CHECK(delay_added(2, Others{1, 0, 3}) == noSleep);
  CHECK(delay_added(2, Others{1, 2, 0}) == noSleep);
  CHECK(delay_added(2, Others{2, 2, 3}) == slept);
}

TEST_CASE("pg_usleep: select() sleeps to the end of the timer slack, or a thousandth of a long timeout", "[xlog]")
{
  pg::OsCosts os;
  os.timer_slack = 50 * us;
  CHECK(pg::select_sleep_seconds(os, 200 * us) == Approx(250 * us));
  CHECK(pg::select_sleep_seconds(os, 0.1) == Approx(0.1001));
  CHECK(pg::select_sleep_seconds(os, 0) == 0);
  os.timer_slack = 0;
  CHECK(pg::select_sleep_seconds(os, 200 * us) == Approx(200.2 * us));
  // In XLogFlush: with no slack the 300 us delay adds 300 us; with 1 ms of slack (prctl), 1.3 ms.
  const Others two{2, 0, 0};
  CHECK(flush_takes(300 * us, 2, two, 0) - flush_takes(0, 2, two, 0) == Approx(300.3 * us).margin(10 * us));
  CHECK(flush_takes(300 * us, 2, two, 1e-3) - flush_takes(0, 2, two, 1e-3) == Approx(1300 * us).margin(10 * us));
}
