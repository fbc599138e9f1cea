/* The commit log (clog.c, slru.c, transam.c of PostgreSQL 15) on scripted interleavings: pages of
 * 32768 transactions, NUM_CLOG_BUFFERS resident pages and faults, CLogControlLock shared for
 * lookups and exclusive for TransactionIdSetTreeStatus, and the group LSN of asynchronous
 * commits. */
#include "txn_rig.hpp"

#include <catch2/catch.hpp>

using pg::Backend;
using pg::TransactionId;
using pg::XidStatus;
using pg::XLogRecPtr;
using test::TxnRig;

namespace {
constexpr double us = 1e-6;
}

TEST_CASE("CLOG: two status bits per transaction, 32768 transactions per 8kB page", "[clog]")
{
  CHECK(pg::CLOG_XACTS_PER_PAGE == 32768);
  CHECK(pg::CLOG_XACTS_PER_PAGE == pg::BLCKSZ * 4);
  TxnRig rig(test::txn_scenario(pg::HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    // ExtendCLOG zeroes a page for the first transaction id of each page (and the very first).
    rig.clog.ExtendCLOG(me, pg::FirstNormalTransactionId);
    rig.clog.ExtendCLOG(me, 32767); // not the first of a page: nothing to do
    rig.clog.ExtendCLOG(me, 32768);
    CHECK(rig.clog.stats().blks_zeroed == 2);
    rig.clog.TransactionIdSetTreeStatus(me, 32767, XidStatus::Committed, 0);
    rig.clog.TransactionIdSetTreeStatus(me, 32768, XidStatus::Aborted, 0);
    XLogRecPtr lsn = 0;
    CHECK(rig.clog.TransactionIdGetStatus(me, 32767, &lsn) == XidStatus::Committed);
    CHECK(rig.clog.TransactionIdGetStatus(me, 32768, &lsn) == XidStatus::Aborted);
    CHECK(rig.clog.TransactionIdGetStatus(me, 32769, &lsn) == XidStatus::InProgress);
  });
}

TEST_CASE("CLOG: lookups take CLogControlLock shared, status updates exclusive", "[clog]")
{
  TxnRig rig(test::txn_scenario(pg::HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    rig.clog.ExtendCLOG(me, pg::FirstNormalTransactionId);
    const auto ex0 = rig.exacq();
    rig.clog.TransactionIdSetTreeStatus(me, 10, XidStatus::Committed, 0);
    CHECK(rig.exacq() == ex0 + 1);
    CHECK(rig.shacq() == 0);
    XLogRecPtr lsn = 0;
    for (int i = 0; i < 5; i++) rig.clog.TransactionIdGetStatus(me, 10, &lsn);
    CHECK(rig.shacq() == 5);
    CHECK(rig.exacq() == ex0 + 1);
    CHECK(rig.clog.stats().blks_read == 0); // resident since ExtendCLOG
  });
}

TEST_CASE("CLOG: with NUM_CLOG_BUFFERS pages resident, a lookup of an evicted page faults it in exclusively", "[clog]")
{
  TxnRig rig(test::txn_scenario(pg::HintBitRule::Flushed, 2));
  rig.run([&](Backend& me) {
    for (TransactionId first : {TransactionId{3}, TransactionId{32768}, TransactionId{65536}})
      rig.clog.ExtendCLOG(me, first);          // three pages through two buffers: page 0 is evicted
    CHECK(rig.clog.stats().blks_written == 1); // page 0 was dirty (just zeroed)
    const auto ex0 = rig.exacq();
    XLogRecPtr lsn = 0;
    rig.clog.TransactionIdGetStatus(me, 100, &lsn); // page 0: not resident
    CHECK(rig.clog.stats().blks_read == 1);
    CHECK(rig.shacq() == 1); // SimpleLruReadPage_ReadOnly tried shared first
    // Then exclusively; the victim, page 1, was dirty (zeroed): again after its write, whose I/O
    // ran without the lock, and again after the read.
    CHECK(rig.clog.stats().blks_written == 2);
    CHECK(rig.exacq() == ex0 + 3);
    rig.clog.TransactionIdGetStatus(me, 101, &lsn); // now resident: shared only
    CHECK(rig.clog.stats().blks_read == 1);
    CHECK(rig.shacq() == 2);
    CHECK(rig.exacq() == ex0 + 3);
    rig.clog.TransactionIdGetStatus(me, 32768 + 5, &lsn); // page 1 was the LRU one: evicted by page 0
    CHECK(rig.clog.stats().blks_read == 2);
  });
}

TEST_CASE("CLOG: a fault costs the reader a read of pg_xact", "[clog]")
{
  auto s              = test::txn_scenario(pg::HintBitRule::Flushed, 1);
  s.hardware.os.pread = 20 * us; // the SLRU read: a system call into the page cache
  TxnRig rig(s);
  double resident = -1, faulted = -1;
  rig.run([&](Backend& me) {
    rig.clog.ExtendCLOG(me, 3);
    rig.clog.ExtendCLOG(me, 32768); // page 0 evicted (written: one system call)
    XLogRecPtr lsn = 0;
    me.proc.flush();
    double t = TxnRig::now();
    rig.clog.TransactionIdGetStatus(me, 32770, &lsn);
    me.proc.flush();
    resident = TxnRig::now() - t;
    t        = TxnRig::now();
    rig.clog.TransactionIdGetStatus(me, 10, &lsn);
    me.proc.flush();
    faulted = TxnRig::now() - t;
  });
  CHECK(resident < 1 * us);
  CHECK(faulted >= 20 * us);
}

TEST_CASE("CLOG: a page is read in without CLogControlLock: lookups of resident pages go on, one of the same page "
          "waits for the read",
          "[clog]")
{
  auto s                         = test::txn_scenario(pg::HintBitRule::Flushed, 3);
  s.hardware.os.pread            = 20 * us;
  s.hardware.os.pwrite           = 0;    // the victim's write-out (page 1, zeroed) takes no time
  s.costs.clog_fetch             = 1000; // 1 us per lookup
  s.hardware.cpu.idle_wakeup_cpu = 0;
  TxnRig rig(s);
  double read_done = -1, other_page = -1, same_page = -1;
  rig.run({[&](Backend& me) {
             for (TransactionId first :
                  {TransactionId{3}, TransactionId{32768}, TransactionId{65536}, TransactionId{98304}})
               rig.clog.ExtendCLOG(me, first); // four pages through three buffers: page 0 is out
             me.proc.flush();
             test::at(me.proc, 10 * us);
             XLogRecPtr lsn = 0;
             rig.clog.TransactionIdGetStatus(me, 10, &lsn); // page 0: read in from 10 us for 20 us
             me.proc.flush();
             read_done = TxnRig::now();
           },
           [&](Backend& me) {
             test::at(me.proc, 15 * us);
             XLogRecPtr lsn = 0;
             rig.clog.TransactionIdGetStatus(me, 65536 + 5, &lsn); // page 2, resident
             me.proc.flush();
             other_page = TxnRig::now();
           },
           [&](Backend& me) {
             test::at(me.proc, 16 * us);
             XLogRecPtr lsn = 0;
             rig.clog.TransactionIdGetStatus(me, 11, &lsn); // page 0, being read
             me.proc.flush();
             same_page = TxnRig::now();
           }});
  CHECK(read_done >= 30 * us);
  CHECK(other_page < 20 * us); // not held up by the read
  CHECK(same_page >= 30 * us); // waited for it on the buffer's lock
  CHECK(same_page < 35 * us);
  CHECK(rig.clog.stats().blks_read == 1);
}

namespace {

// Three buffers hold pages 0-2, each dirty since ExtendCLOG zeroed it. At 10 us backend 0 zeroes
// page 3, whose buffer is page 0's: page 0 is written out from 10 us for 20 us. Backend 1 looks up
// page 2 at 15 us; backend 2 sets a status on page 0 at 16 us, with the given commit LSN.
struct WriteOut {
  double lookup_done = -1, set_done = -1, write_done = -1;
  std::uint64_t blks_read = 0;
};

WriteOut write_out_with(XLogRecPtr lsn)
{
  auto s                         = test::txn_scenario(pg::HintBitRule::Flushed, 3);
  s.hardware.os.pwrite           = 20 * us;
  s.costs.clog_fetch             = 1000; // 1 us per lookup
  s.hardware.cpu.idle_wakeup_cpu = 0;
  TxnRig rig(s);
  WriteOut w;
  rig.run({[&](Backend& me) {
             for (TransactionId first : {TransactionId{3}, TransactionId{32768}, TransactionId{65536}})
               rig.clog.ExtendCLOG(me, first);
             me.proc.flush();
             test::at(me.proc, 10 * us);
             rig.clog.ExtendCLOG(me, 98304);
             me.proc.flush();
             w.write_done = TxnRig::now();
           },
           [&](Backend& me) {
             test::at(me.proc, 15 * us);
             XLogRecPtr got = 0;
             rig.clog.TransactionIdGetStatus(me, 65536 + 5, &got);
             me.proc.flush();
             w.lookup_done = TxnRig::now();
           },
           [&](Backend& me) {
             test::at(me.proc, 16 * us);
             rig.clog.TransactionIdSetTreeStatus(me, 7, XidStatus::Committed, lsn);
             me.proc.flush();
             w.set_done = TxnRig::now();
           }});
  CHECK(rig.clog.peek(7) == XidStatus::Committed);
  CHECK(rig.clog.stats().blks_written >= 1);
  w.blks_read = rig.clog.stats().blks_read;
  return w;
}

} // namespace

TEST_CASE("CLOG: a dirty victim is written out without CLogControlLock: lookups go on, and only an asynchronous "
          "commit's status waits for the write",
          "[clog]")
{
  const WriteOut sync = write_out_with(pg::InvalidXLogRecPtr);
  CHECK(sync.write_done >= 30 * us);
  CHECK(sync.lookup_done < 20 * us); // not held up by the write
  CHECK(sync.set_done < 20 * us);    // a synchronous commit may change the page under the write
  CHECK(sync.blks_read == 0);

  // An asynchronous commit's status must not reach disk before its commit record: it waits for the
  // write, by which time the page has made way for page 3, so it reads it back in (after writing
  // out page 1, dirty too).
  const WriteOut async = write_out_with(1000);
  CHECK(async.lookup_done < 20 * us);
  CHECK(async.set_done >= 50 * us);
  CHECK(async.blks_read == 1);
}

TEST_CASE("CLOG: an asynchronous commit's LSN is kept per group of transactions, the latest one wins", "[clog]")
{
  CHECK(pg::CLOG_XACTS_PER_LSN_GROUP == 32);
  TxnRig rig(test::txn_scenario(pg::HintBitRule::Flushed));
  rig.run([&](Backend& me) {
    rig.clog.ExtendCLOG(me, 3);
    rig.clog.TransactionIdSetTreeStatus(me, 64, XidStatus::Committed, 5000); // group 2
    rig.clog.TransactionIdSetTreeStatus(me, 65, XidStatus::Committed, 3000); // group 2, earlier LSN
    rig.clog.TransactionIdSetTreeStatus(me, 96, XidStatus::Committed, 4000); // group 3
    XLogRecPtr lsn = 0;
    rig.clog.TransactionIdGetStatus(me, 65, &lsn);
    CHECK(lsn == 5000); // the group's LSN: waiting for it is safe for every member
    rig.clog.TransactionIdGetStatus(me, 96, &lsn);
    CHECK(lsn == 4000);
    rig.clog.TransactionIdGetStatus(me, 10, &lsn); // group 0: no asynchronous commit
    CHECK(lsn == pg::InvalidXLogRecPtr);
  });
}

TEST_CASE("CLOG: concurrent lookups share the lock; a status update makes them sleep", "[clog]")
{
  auto s             = test::txn_scenario(pg::HintBitRule::Flushed);
  s.costs.clog_fetch = 3000;  // 3 us per lookup under the lock
  s.costs.clog_set   = 10000; // 10 us per status update under the lock
  TxnRig rig(s);
  double b_done = -1, c_done = -1;
  rig.run({[&](Backend& me) {
             rig.clog.ExtendCLOG(me, 3);
             me.proc.flush();
             test::at(me.proc, 10 * us);
             rig.clog.TransactionIdSetTreeStatus(me, 7, XidStatus::Committed, 0); // 10-20 us exclusive
             me.proc.flush();
           },
           [&](Backend& me) {
             XLogRecPtr lsn = 0;
             test::at(me.proc, 1 * us);
             rig.clog.TransactionIdGetStatus(me, 5, &lsn); // 1-4 us, beside C
             me.proc.flush();
             test::at(me.proc, 12 * us);
             rig.clog.TransactionIdGetStatus(me, 7, &lsn); // must wait for the update
             me.proc.flush();
             b_done = TxnRig::now();
             CHECK(rig.clog.peek(7) == XidStatus::Committed);
           },
           [&](Backend& me) {
             XLogRecPtr lsn = 0;
             test::at(me.proc, 2 * us);
             rig.clog.TransactionIdGetStatus(me, 6, &lsn); // 2-5 us, overlapping B's
             me.proc.flush();
             c_done = TxnRig::now();
           }});
  CHECK(c_done == Approx(5 * us).margin(0.1 * us));  // no wait behind B's shared hold
  CHECK(b_done == Approx(23 * us).margin(0.5 * us)); // 20 us release + 3 us lookup
  CHECK(rig.clog_lock_stats().blk == 1);
  CHECK(rig.shacq() == 3);
}

TEST_CASE("CLOG: a lookup pays for the lines that other cores' commits wrote; the LRU counters only move when "
          "another page was used since",
          "[clog]")
{
  auto s                    = test::txn_scenario(pg::HintBitRule::Flushed);
  s.hardware.cpu.line_local = s.hardware.cpu.line_remote = 1 * us;
  TxnRig rig(s);
  // A lookup's time, flushed so that its cache-line stalls count.
  const auto lookup = [&](Backend& me, TransactionId xid) {
    me.proc.flush();
    const double t = TxnRig::now();
    XLogRecPtr lsn = 0;
    rig.clog.TransactionIdGetStatus(me, xid, &lsn);
    me.proc.flush();
    return TxnRig::now() - t;
  };
  // Both stay on their CPUs (busy until the next step), so each keeps its own cache.
  const auto busy_until = [](Backend& me, double t) {
    me.proc.work((t - me.proc.local_time()) * 1e9);
    me.proc.flush();
  };
  double own = -1, first = -1, other_line = -1, same_line = -1, async_line = -1, lru_moved = -1;
  rig.run({[&](Backend& me) {
             me.proc.flush();
             rig.clog.ExtendCLOG(me, 3);
             rig.clog.TransactionIdSetTreeStatus(me, 10, XidStatus::Committed, 0);
             own = lookup(me, 10);
             busy_until(me, 150 * us);
             rig.clog.TransactionIdSetTreeStatus(me, 600, XidStatus::Committed, 0); // another line
             busy_until(me, 250 * us);
             rig.clog.TransactionIdSetTreeStatus(me, 12, XidStatus::Committed, 0); // the line of 10-255
             busy_until(me, 350 * us);
             rig.clog.TransactionIdSetTreeStatus(me, 13, XidStatus::Committed, 5000); // and its group LSN
             busy_until(me, 450 * us);
             rig.clog.ExtendCLOG(me, 32768);                                       // page 1 used last
             rig.clog.TransactionIdSetTreeStatus(me, 14, XidStatus::Committed, 0); // page 0 again
             me.proc.flush();
           },
           [&](Backend& me) {
             me.proc.flush(); // on a CPU first: a process starts off one
             busy_until(me, 100 * us);
             first = lookup(me, 10);
             busy_until(me, 200 * us);
             other_line = lookup(me, 11);
             busy_until(me, 300 * us);
             same_line = lookup(me, 12);
             busy_until(me, 400 * us);
             async_line = lookup(me, 13);
             busy_until(me, 500 * us);
             lru_moved = lookup(me, 14);
           }});
  CHECK(own < 0.1 * us); // every line is still in the committer's cache
  // The lock word (its load, then its compare-and-swap) and the status byte's line. Commits to the
  // page used last leave cur_lru_count and page_lru_count alone, so they cost nothing here.
  CHECK(first == Approx(3 * us).margin(0.1 * us));
  CHECK(other_line == Approx(2 * us).margin(0.1 * us));             // only the lock word moved since
  CHECK(same_line - other_line == Approx(1 * us).margin(0.1 * us)); // the status byte's line
  CHECK(async_line - same_line == Approx(1 * us).margin(0.1 * us)); // and the group LSN's
  // After another page was used, SlruRecentlyUsed wrote the SLRU header and page_lru_count.
  CHECK(lru_moved - same_line == Approx(2 * us).margin(0.1 * us));
}

TEST_CASE("CLOG: transactions before the window are committed, and only the latest of their pages are resident",
          "[clog]")
{
  // 200,000 earlier transactions fill pages 0-6; four buffers hold pages 3-6.
  auto s                        = test::txn_scenario(pg::HintBitRule::Flushed, 4);
  s.pgbench.prior_transactions  = 200000;
  const TransactionId first_new = pg::FirstNormalTransactionId + 200000;
  TxnRig rig(s);
  rig.run([&](Backend& me) {
    CHECK(rig.procarray.next_xid() == first_new);
    CHECK(rig.clog.peek(first_new - 1) == XidStatus::Committed);
    CHECK(rig.clog.peek(pg::FirstNormalTransactionId) == XidStatus::Committed);
    CHECK(rig.clog.peek(first_new) == XidStatus::InProgress);
    XLogRecPtr lsn = 1;
    // A recent one is on a resident page; its group LSN was flushed long ago.
    CHECK(rig.clog.TransactionIdGetStatus(me, first_new - 10, &lsn) == XidStatus::Committed);
    CHECK(lsn == pg::InvalidXLogRecPtr);
    CHECK(rig.clog.stats().blks_read == 0);
    // An old one is read in, exclusively; the window's own page stays (it is the latest page).
    CHECK(rig.clog.TransactionIdGetStatus(me, 1000, &lsn) == XidStatus::Committed);
    CHECK(rig.clog.stats().blks_read == 1);
    rig.clog.TransactionIdSetTreeStatus(me, first_new, XidStatus::Committed, 0);
    CHECK(rig.clog.stats().blks_read == 1);
    CHECK(rig.clog.peek(first_new) == XidStatus::Committed);
  });
}
