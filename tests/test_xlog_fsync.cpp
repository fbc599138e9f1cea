/* issue_xlog_fsync() as ext4's fdatasync() runs it: the WAL pages are written and waited for,
 * and only then is the device's cache flushed and waited for. The wake-up between the two needs
 * a CPU, so a busy CPU delays the flush itself, not only the return from the call. */
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

using pg::Backend;
using test::TxnRig;

namespace {
constexpr double us = 1e-6;

// When a commit flushed at t = 0 returns, on one CPU that a process wanting hog_ms of CPU time
// takes as soon as the committer sleeps. The rig's device writes an 8 kB page in 150 us and
// flushes its cache in 1 ms; the system calls' own CPU time is left out.
double flushed_at(double hog_ms)
{
  TxnRig rig(test::flush_scenario(1), 2);
  double done = -1;
  rig.run({[&](Backend& me) {
             const pg::XLogRecPtr end = rig.xlog.XLogInsert(me, pg::XLogRecordData{100, 0});
             rig.xlog.XLogFlush(me, end);
             done = TxnRig::now();
           },
           [&](Backend& hog) {
             hog.proc.work(hog_ms * 1e6);
             hog.proc.flush();
           }});
  CHECK(rig.xlog.stats().wal_sync == 1);
  return done;
}
} // namespace

TEST_CASE("issue_xlog_fsync: the cache flush is sent once the data write is done", "[xlog]")
{
  // Written by 150 us, flushed 1 ms later: the two waits add up.
  CHECK(flushed_at(0) == Approx(1150 * us));
}

TEST_CASE("issue_xlog_fsync: the flush waits for the committer to get its CPU back after the write", "[xlog]")
{
  // The hog holds the only CPU from the committer's first sleep until 2 ms, so the flush goes to
  // the device only then. A flush sent with the write would have been done at 1.15 ms, and the
  // call would have returned at 2 ms.
  CHECK(flushed_at(2) == Approx(3000 * us));
}
