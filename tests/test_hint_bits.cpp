/* SetHintBits and its rules for asynchronously committed transactions (heapam_visibility.c):
 * 'always' sets a committed hint at once; 'flushed' only once the commit record is flushed;
 * 'flushed_or_page_lsn' (db76b1efbbab24) also when the page's LSN is at or past the commit
 * record. Unlogged tables never wait for the flush, and abort hints never do. */
#include "models/clog.hpp"
#include "models/heapam.hpp"
#include "models/lmgr.hpp"
#include "models/procarray.hpp"
#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
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

pg::Scenario hint_scenario(pg::HintBitRule rule)
{
  pg::Scenario s                  = test::rig_scenario(16384); // 128MB: wal_buffers as by default
  s.hardware.wal_device.bandwidth = 1e9;
  s.settings.synchronous_commit   = false;
  s.policies.hint_bits            = rule;
  return s;
}

struct HintRig {
  explicit HintRig(const pg::Scenario& s)
      : scenario(s), events(names), cpu(s.hardware.cpu), wal(s.hardware.wal_device), xlog(scenario, events, wal),
        clog(scenario, events, xlog), procarray(scenario, events, clog), locks(scenario, events),
        heapam(scenario, events, xlog, clog, procarray, locks),
        logged("pgbench_tellers", 80, 128, 100, true, events.BufferContent, events.LockExtend, s.policies.lwlock),
        unlogged("pgbench_tellers_unlogged", 80, 128, 100, false, events.BufferContent, events.LockExtend,
                 s.policies.lwlock),
        backend("backend", 0, cpu, sim::Rng(1, 0))
  {
  }

  void run(const std::function<void()>& script)
  {
    simulation.spawn("backend", [this, script]() {
      script();
      backend.proc.exit();
    });
    sim::Window w;
    w.duration = 1.0;
    simulation.run(w, nullptr, nullptr, nullptr);
  }

  /// Transaction xid commits asynchronously: its commit record is inserted (not flushed) and its
  /// CLOG status set with the commit LSN. Returns the commit LSN.
  pg::XLogRecPtr commit(pg::TransactionId xid)
  {
    const pg::XLogRecPtr lsn = xlog.XLogInsert(backend, pg::XLogRecordData{100, 0});
    clog.TransactionIdSetTreeStatus(backend, xid, pg::XidStatus::Committed, lsn);
    return lsn;
  }

  /// SetHintBits(HEAP_XMIN_COMMITTED) on a fresh, unhinted tuple inserted by xid on a clean page
  /// with LSN page_lsn; true if the hint was set.
  bool hint_xmin(pg::Relation& rel, std::uint32_t block, pg::XLogRecPtr page_lsn, pg::TransactionId xid)
  {
    pg::HeapPage& page = rel.page(block);
    page.lsn           = page_lsn;
    page.dirty         = false;
    pg::TupleVersion t;
    t.xmin     = xid;
    t.infomask = 0;
    heapam.SetHintBits(backend, rel, page, t, pg::HEAP_XMIN_COMMITTED, xid);
    const bool set = (t.infomask & pg::HEAP_XMIN_COMMITTED) != 0;
    // A hint that is set dirties the page (MarkBufferDirtyHint); a refused one does not.
    if (set != page.dirty) throw std::logic_error("hint set without dirtying the page, or the reverse");
    return set;
  }

  /// SetHintBits(HEAP_XMIN_INVALID, InvalidTransactionId) on a clean page with LSN 0, as
  /// HeapTupleSatisfiesMVCC does for an aborted inserter; true if the hint was set.
  bool hint_abort(pg::Relation& rel, std::uint32_t block)
  {
    pg::HeapPage& page = rel.page(block);
    page.lsn           = pg::InvalidXLogRecPtr;
    pg::TupleVersion t;
    t.xmin     = kAbortedXid;
    t.infomask = 0;
    heapam.SetHintBits(backend, rel, page, t, pg::HEAP_XMIN_INVALID, pg::InvalidTransactionId);
    return (t.infomask & pg::HEAP_XMIN_INVALID) != 0;
  }

  static constexpr pg::TransactionId kAbortedXid = 1001;

  pg::Scenario scenario;
  sim::Simulation simulation;
  sim::WaitEventNames names;
  pg::WaitEvents events;
  sim::Cpu cpu;
  sim::Nvme wal;
  pg::Xlog xlog;
  pg::Clog clog;
  pg::ProcArray procarray;
  pg::LockManager locks;
  pg::Heapam heapam;
  pg::Relation logged;
  pg::Relation unlogged;
  pg::Backend backend;
};

constexpr pg::TransactionId kXid = 1000;

/// What SetHintBits decided for a tuple of kXid, in the four situations of an asynchronous commit.
struct Decisions {
  bool behind_unflushed   = false; // page LSN before the commit record, commit not flushed
  bool ahead_unflushed    = false; // page LSN past the commit record, commit not flushed
  bool at_unflushed       = false; // page LSN equal to the commit record's, commit not flushed
  bool unlogged_unflushed = false; // unlogged table, commit not flushed
  bool behind_flushed     = false; // page LSN before the commit record, commit flushed
  bool abort_unflushed    = false; // HEAP_XMIN_INVALID (no xid to check), page LSN behind
  std::uint64_t refused   = 0;
};

Decisions decide(pg::HintBitRule rule, bool wal_log_hints = false)
{
  pg::Scenario s           = hint_scenario(rule);
  s.settings.wal_log_hints = wal_log_hints;
  HintRig rig(s);
  Decisions d;
  rig.run([&]() {
    rig.clog.ExtendCLOG(rig.backend, pg::FirstNormalTransactionId);
    const pg::XLogRecPtr commit = rig.commit(kXid);
    // A later change to the page (another transaction's update) moves its LSN past the commit.
    const pg::XLogRecPtr later = rig.xlog.XLogInsert(rig.backend, pg::XLogRecordData{200, 0});
    d.behind_unflushed         = rig.hint_xmin(rig.logged, 0, commit - 1, kXid);
    d.ahead_unflushed          = rig.hint_xmin(rig.logged, 1, later, kXid);
    d.at_unflushed             = rig.hint_xmin(rig.logged, 4, commit, kXid);
    d.unlogged_unflushed       = rig.hint_xmin(rig.unlogged, 0, pg::InvalidXLogRecPtr, kXid);
    d.abort_unflushed          = rig.hint_abort(rig.logged, 3);
    rig.xlog.XLogFlush(rig.backend, commit);
    d.behind_flushed = rig.hint_xmin(rig.logged, 2, pg::InvalidXLogRecPtr, kXid);
    d.refused        = rig.heapam.hint_stats().refused;
  });
  return d;
}

} // namespace

TEST_CASE("SetHintBits 'always': a committed hint is set at once, flushed or not", "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::Always);
  CHECK(d.behind_unflushed);
  CHECK(d.ahead_unflushed);
  CHECK(d.at_unflushed);
  CHECK(d.unlogged_unflushed);
  CHECK(d.behind_flushed);
  CHECK(d.refused == 0);
}

TEST_CASE("SetHintBits 'flushed': no committed hint on a permanent table until the commit record is flushed, "
          "whatever the page LSN",
          "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::Flushed);
  CHECK_FALSE(d.behind_unflushed);
  CHECK_FALSE(d.ahead_unflushed);
  CHECK_FALSE(d.at_unflushed);
  CHECK(d.behind_flushed);
  CHECK(d.refused == 3);
}

TEST_CASE("SetHintBits 'flushed_or_page_lsn': an unflushed commit's hint is set when the page LSN is past the "
          "commit record, and refused when it is behind",
          "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::FlushedOrPageLsn);
  CHECK_FALSE(d.behind_unflushed);
  CHECK(d.ahead_unflushed);
  CHECK(d.at_unflushed); // "at or past": a page LSN equal to the commit record's is enough
  CHECK(d.behind_flushed);
  CHECK(d.refused == 1);
}

// One simulation per process: each rule's unlogged case is its own test case.
TEST_CASE("SetHintBits 'flushed': an unlogged table never waits for the commit record's flush, nor does an "
          "abort hint",
          "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::Flushed);
  CHECK(d.unlogged_unflushed);
  CHECK(d.abort_unflushed);
}

TEST_CASE("SetHintBits 'flushed_or_page_lsn': an unlogged table never waits for the commit record's flush, nor "
          "does an abort hint",
          "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::FlushedOrPageLsn);
  CHECK(d.unlogged_unflushed);
  CHECK(d.abort_unflushed);
}

// With wal_log_hints the page LSN is read under the buffer header's spinlock (BufferGetLSNAtomic):
// a cost, not a different decision.
TEST_CASE("SetHintBits 'flushed_or_page_lsn' with wal_log_hints decides as without it", "[hint_bits]")
{
  const Decisions d = decide(pg::HintBitRule::FlushedOrPageLsn, true);
  CHECK_FALSE(d.behind_unflushed);
  CHECK(d.ahead_unflushed);
  CHECK(d.at_unflushed);
  CHECK(d.behind_flushed);
  CHECK(d.refused == 1);
}

// BufferIsPermanent and MarkBufferDirtyHint read the buffer header's state word, which pins
// rewrite: on a page another core has just pinned that read is a line transfer, on a page nobody
// else touched it is not.
double hint_seconds_after_a_pin_elsewhere(pg::HintBitRule rule)
{
  pg::Scenario s            = hint_scenario(rule);
  s.hardware.cpu.line_local = s.hardware.cpu.line_remote = 1e-6;
  HintRig rig(s);
  pg::Backend other("other", 1, rig.cpu, sim::Rng(2, 0));
  rig.simulation.spawn("other", [&]() {
    other.proc.flush(); // on a CPU first: a process starts off one
    rig.logged.page(0).header.rmw(other.proc);
    other.proc.work(5e6); // 5 ms: keeps its core, so the backend runs on the other one
    other.proc.exit();
  });
  double untouched = -1, pinned_elsewhere = -1;
  rig.run([&]() {
    rig.backend.proc.block_until(1e-3, sim::kCpu);
    rig.clog.ExtendCLOG(rig.backend, pg::FirstNormalTransactionId);
    const pg::XLogRecPtr commit = rig.commit(kXid);
    double t                    = rig.backend.proc.local_time();
    rig.hint_xmin(rig.logged, 1, commit - 1, kXid);
    untouched = rig.backend.proc.local_time() - t;
    t         = rig.backend.proc.local_time();
    rig.hint_xmin(rig.logged, 0, commit - 1, kXid);
    pinned_elsewhere = rig.backend.proc.local_time() - t;
  });
  CHECK(untouched == Approx(0).margin(1e-12));
  return pinned_elsewhere;
}

TEST_CASE("SetHintBits: a hint refused on a page another core pinned pays the buffer header's line transfer",
          "[hint_bits]")
{
  CHECK(hint_seconds_after_a_pin_elsewhere(pg::HintBitRule::Flushed) == Approx(1e-6));
}

TEST_CASE("SetHintBits 'always': setting a hint on a page another core pinned reads the buffer header, then "
          "takes it to mark the page dirty",
          "[hint_bits]")
{
  CHECK(hint_seconds_after_a_pin_elsewhere(pg::HintBitRule::Always) == Approx(2e-6));
}
