/* The WAL writer's wake-up and flush policies on scripted interleavings: which asynchronous
 * commit sets the writer's latch under each policy (XLogSetAsyncXactLSN), when the writer runs a
 * cycle, and what each cycle writes and flushes (XLogBackgroundFlush before and after the 2016
 * rework). One backend commits at fixed times; the WAL writer runs WalWriterMain. */
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
#include "models/walwriter.hpp"
#include "models/xlog.hpp"
#include "scan_rig.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"

#include <catch2/catch.hpp>

#include <functional>

namespace {

using test::ms;
using test::us;

/// Free CPU and scheduling, a WAL device with 50us writes and 1ms flushes.
pg::Scenario wal_scenario(pg::WalWriterWakeup wakeup, pg::WalWriterFlush flush)
{
  pg::Scenario s                  = test::rig_scenario(16384); // 128MB: wal_buffers as by default
  s.hardware.cpu.cores_per_socket = 4;
  s.hardware.wal_device.bandwidth = 1e9;
  s.settings.synchronous_commit   = false;
  s.settings.wal_writer_delay     = 200 * ms;
  s.policies.walwriter_wakeup     = wakeup;
  s.policies.walwriter_flush      = flush;
  return s;
}

/// What the script saw at one instant: writer cycles, latch signals, written and flushed LSN.
struct Seen {
  std::uint64_t cycles  = 0;
  std::uint64_t wakeups = 0;
  pg::XLogRecPtr write  = 0;
  pg::XLogRecPtr flush  = 0;
};

struct WalRig {
  explicit WalRig(const pg::Scenario& s)
      : scenario(s), events(names), cpu(s.hardware.cpu), wal(s.hardware.wal_device), xlog(scenario, events, wal),
        writer_backend("walwriter", 1, cpu, sim::Rng(1, 1)), writer(writer_backend, xlog, scenario, events),
        backend("backend", 0, cpu, sim::Rng(1, 0))
  {
    xlog.set_walwriter(&writer.latch());
  }

  /// Runs the WAL writer and the backend's script for `seconds` of simulated time.
  void run(const std::function<void()>& script, double seconds)
  {
    simulation.spawn("walwriter", [this]() { writer.main(); });
    simulation.spawn("backend", [this, script]() {
      script();
      backend.proc.exit();
    });
    sim::Window w;
    w.duration = seconds;
    simulation.run(w, nullptr, nullptr, nullptr);
  }

  /// The backend inserts a commit record of `bytes` and commits asynchronously at time t.
  pg::XLogRecPtr commit_at(double t, double bytes)
  {
    backend.proc.block_until(t, sim::kCpu);
    const pg::XLogRecPtr end = xlog.XLogInsert(backend, pg::XLogRecordData{bytes, 0});
    xlog.XLogSetAsyncXactLSN(backend, end);
    backend.proc.flush();
    return end;
  }

  Seen seen_at(double t)
  {
    backend.proc.block_until(t, sim::kCpu);
    return Seen{writer.cycles(), xlog.stats().walwriter_wakeups, xlog.written_lsn(), xlog.flushed_lsn()};
  }

  pg::Scenario scenario;
  sim::Simulation simulation;
  sim::WaitEventNames names;
  pg::WaitEvents events;
  sim::Cpu cpu;
  sim::Nvme wal;
  pg::Xlog xlog;
  pg::Backend writer_backend;
  pg::WalWriter writer;
  pg::Backend backend;
};

/// The script of most tests: a small commit on the first page at 10ms; a commit whose record
/// fills two pages at 20ms; another two pages at 40ms; a small commit on the page the 40ms
/// record ended on at 60ms. What the writer did is read 5ms after each commit.
struct Timeline {
  pg::XLogRecPtr a = 0, b = 0, d = 0, e = 0;
  Seen start, after_a, after_b, after_d, after_e;
};

Timeline run_timeline(WalRig& rig)
{
  Timeline tl;
  rig.run(
      [&]() {
        tl.start   = rig.seen_at(5 * ms);
        tl.a       = rig.commit_at(10 * ms, 200);
        tl.after_a = rig.seen_at(15 * ms);
        tl.b       = rig.commit_at(20 * ms, 2 * pg::XLOG_BLCKSZ);
        tl.after_b = rig.seen_at(25 * ms);
        tl.d       = rig.commit_at(40 * ms, 2 * pg::XLOG_BLCKSZ);
        tl.after_d = rig.seen_at(45 * ms);
        tl.e       = rig.commit_at(60 * ms, 200);
        tl.after_e = rig.seen_at(65 * ms);
      },
      0.1);
  return tl;
}

} // namespace

TEST_CASE("WAL writer: 'always' wakes the writer on every asynchronous commit, and each cycle of the 9.2-9.5 "
          "writer flushes all it writes, the last partial page included",
          "[walwriter]")
{
  WalRig rig(wal_scenario(pg::WalWriterWakeup::Always, pg::WalWriterFlush::AllWritten));
  const Timeline tl = run_timeline(rig);
  // The writer's first cycle at t=0 found nothing to do; then it sleeps for wal_writer_delay.
  REQUIRE(tl.start.cycles == 1);
  // A commit on the first, incomplete page wakes it, and the cycle flushes up to that commit.
  CHECK(tl.after_a.wakeups == 1);
  CHECK(tl.after_a.cycles == 2);
  CHECK(tl.after_a.flush >= tl.a);
  // Each later commit wakes it again and every cycle flushes what it writes. With complete pages
  // to write, a cycle writes and flushes only those (the commit's partial page waits)...
  CHECK(tl.after_b.wakeups == 2);
  CHECK(tl.after_b.flush == pg::page_start(tl.b));
  CHECK(tl.after_b.write == tl.after_b.flush);
  CHECK(tl.after_d.wakeups == 3);
  CHECK(tl.after_e.wakeups == 4);
  CHECK(tl.after_e.cycles == 5);
  // ... and with none, it flushes up to the latest asynchronous commit.
  CHECK(tl.after_e.flush >= tl.e);
  CHECK(tl.after_e.flush == tl.after_e.write);
}

TEST_CASE("WAL writer: 'hibernating' never wakes a writer in its short sleeps: it cycles every wal_writer_delay "
          "and commits wait for that",
          "[walwriter]")
{
  WalRig rig(wal_scenario(pg::WalWriterWakeup::Hibernating, pg::WalWriterFlush::AllWritten));
  const Timeline tl = run_timeline(rig);
  CHECK(tl.after_e.wakeups == 0);
  CHECK(tl.after_e.cycles == 1);
  CHECK(tl.after_e.flush == 0);
  CHECK(tl.after_e.write == 0);
}

TEST_CASE("WAL writer: 'hibernating' wakes the writer once it hibernates (after 50 idle cycles)", "[walwriter]")
{
  auto s                      = wal_scenario(pg::WalWriterWakeup::Hibernating, pg::WalWriterFlush::AllWritten);
  s.settings.wal_writer_delay = 10 * ms;
  WalRig rig(s);
  Seen before, after;
  pg::XLogRecPtr lsn = 0;
  // 50 idle cycles of 10ms: from then on the writer sleeps 25x longer and says so.
  rig.run(
      [&]() {
        before = rig.seen_at(700 * ms);
        lsn    = rig.commit_at(700 * ms, 200);
        after  = rig.seen_at(705 * ms);
      },
      1.0);
  CHECK(before.cycles == 50);
  CHECK(before.wakeups == 0);
  CHECK(after.wakeups == 1);
  CHECK(after.cycles == 51);
  CHECK(after.flush >= lsn);
}

TEST_CASE("WAL writer: 'unflushed_page' with the 9.2-9.5 writer (XLogSetAsyncXactLSN of 9.2-16) wakes it once a "
          "completed page is unflushed, not for commits on a page whose start is already flushed",
          "[walwriter]")
{
  WalRig rig(wal_scenario(pg::WalWriterWakeup::UnflushedPage, pg::WalWriterFlush::AllWritten));
  const Timeline tl = run_timeline(rig);
  // A commit on the first, incomplete page: no completed page to write, no wake-up.
  CHECK(tl.after_a.wakeups == 0);
  CHECK(tl.after_a.flush == 0);
  // Completed pages wake it, and its cycle writes and flushes them.
  CHECK(tl.after_b.wakeups == 1);
  CHECK(tl.after_b.flush == pg::page_start(tl.b));
  CHECK(tl.after_b.write == tl.after_b.flush);
  CHECK(tl.after_d.wakeups == 2);
  CHECK(tl.after_d.flush == pg::page_start(tl.d));
  // The commit at 60ms lies on the page whose start the last cycle flushed: no wake-up, and its
  // record waits for the writer's next timed cycle.
  CHECK(tl.after_e.wakeups == 2);
  CHECK(tl.after_e.cycles == tl.after_d.cycles);
  CHECK(tl.after_e.flush < tl.e);
}

TEST_CASE("WAL writer: 'unflushed_page' with the 2016 rework wakes the writer for a page it has written and will "
          "not flush yet, a cycle that writes and flushes nothing",
          "[walwriter]")
{
  WalRig rig(wal_scenario(pg::WalWriterWakeup::UnflushedPage, pg::WalWriterFlush::DelayOrFlushAfter));
  const Timeline tl = run_timeline(rig);
  // No wake-up for a commit on the first, incomplete page.
  CHECK(tl.after_a.wakeups == 0);
  CHECK(tl.after_a.cycles == 1);
  // Completed pages wake it. The first flush comes at once (no flush yet), the next cycle only
  // writes: wal_writer_delay has not passed and less than wal_writer_flush_after is unflushed.
  CHECK(tl.after_b.wakeups == 1);
  CHECK(tl.after_b.flush == pg::page_start(tl.b));
  CHECK(tl.after_d.wakeups == 2);
  CHECK(tl.after_d.write == pg::page_start(tl.d));
  CHECK(tl.after_d.flush == pg::page_start(tl.b));
  // The commit at 60ms is on the page just written: woken again, the writer writes nothing new
  // and flushes nothing.
  CHECK(tl.after_e.wakeups == 3);
  CHECK(tl.after_e.cycles == tl.after_d.cycles + 1);
  CHECK(tl.after_e.write == tl.after_d.write);
  CHECK(tl.after_e.flush == tl.after_d.flush);
}

TEST_CASE("WAL writer: 'unwritten_page' (the 2017 patch) wakes the writer only for unwritten pages", "[walwriter]")
{
  WalRig rig(wal_scenario(pg::WalWriterWakeup::UnwrittenPage, pg::WalWriterFlush::DelayOrFlushAfter));
  const Timeline tl = run_timeline(rig);
  CHECK(tl.after_a.wakeups == 0);
  CHECK(tl.after_b.wakeups == 1);
  CHECK(tl.after_d.wakeups == 2);
  CHECK(tl.after_d.write == pg::page_start(tl.d));
  CHECK(tl.after_d.flush == pg::page_start(tl.b));
  // The page of the 60ms commit is written already: no wake-up, no cycle.
  CHECK(tl.after_e.wakeups == 2);
  CHECK(tl.after_e.cycles == tl.after_d.cycles);
}

TEST_CASE("WAL writer: 'unwritten_page' wakes the writer once wal_writer_flush_after bytes are unflushed, and "
          "that cycle flushes",
          "[walwriter]")
{
  auto s = wal_scenario(pg::WalWriterWakeup::UnwrittenPage, pg::WalWriterFlush::DelayOrFlushAfter);
  s.settings.wal_writer_flush_after = 2 * pg::XLOG_BLCKSZ;
  WalRig rig(s);
  const Timeline tl = run_timeline(rig);
  // At 40ms two pages are written but unflushed: the writer flushes them (flush_after reached).
  CHECK(tl.after_d.flush == pg::page_start(tl.d));
  // At 60ms nothing is unwritten or unflushed past the threshold: no wake-up.
  CHECK(tl.after_e.wakeups == tl.after_d.wakeups);
}
