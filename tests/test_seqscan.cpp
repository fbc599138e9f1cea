/* The scan's visibility checks and hint bits on scripted cases (tqual.c / heapam_visibility.c:
 * SetHintBits and its flush rule, the single-entry transaction status cache), the hint-bit I/O
 * budget, and tuple sizes derived from column types. */
#include "models/hint_io.hpp"
#include "models/relation.hpp"
#include "models/seqscan.hpp"
#include "models/transam.hpp"
#include "models/tuple_layout.hpp"
#include "scan_rig.hpp"

#include <catch2/catch.hpp>

namespace {

constexpr pg::TransactionId kXid = 1000;

enum class Commit { Flushed, Unflushed, Aborted };

/// A 4-page table of 10 rows a page inserted by kXid, in a rig whose hint-bit rule is `rule`.
struct HintCase {
  HintCase(pg::HintBitRule rule, Commit commit)
      : rig(scenario(rule), 1000, test::rig_queue(100, true)), rel("t", 16384, 4), table{rel, 40, 10, kXid},
        scanner(rig.scenario, rig.bufmgr, rig.clog, rig.xlog), commit_(commit)
  {
    rig.bufmgr.add_relation(rel);
    rig.os.preload_clean(rel.os_file(0), rel.nblocks());
  }

  static pg::Scenario scenario(pg::HintBitRule rule)
  {
    pg::Scenario s               = test::rig_scenario(16);
    s.policies.hint_bits         = rule;
    s.policies.clog_group_update = false;
    return s;
  }

  /// The inserting transaction ends as scripted; the backend's snapshot comes after it.
  void finish_insert()
  {
    pg::Backend& me = rig.backend;
    commit_lsn      = rig.xlog.XLogInsert(me, pg::XLogRecordData{38, 0});
    if (commit_ == Commit::Flushed) rig.xlog.XLogFlush(me, commit_lsn);
    rig.clog.TransactionIdSetTreeStatus(
        me, kXid, commit_ == Commit::Aborted ? pg::XidStatus::Aborted : pg::XidStatus::Committed, commit_lsn);
    me.snapshot.xmin = kXid + 1;
    me.snapshot.xmax = kXid + 1;
  }

  test::ScanRig rig;
  pg::SmgrRelation rel;
  pg::ScanTable table;
  pg::HeapScanner scanner;
  pg::XLogRecPtr commit_lsn = 0;

private:
  Commit commit_;
};

} // namespace

TEST_CASE("SetHintBits: a committed and flushed xmin is hinted, the page dirtied by hints only", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Flushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    counts = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.visible == 40);
  CHECK(counts.hints_set == 40);
  CHECK(counts.hints_refused == 0);
  CHECK(c.rig.counters.dirtied_by_hints == 4);
  const int buf = c.rig.pool.BufTableLookup(pg::BufferTag{16384, 2});
  REQUIRE(buf >= 0);
  const pg::BufferDesc& d = c.rig.pool.GetBufferDescriptor(buf);
  CHECK(d.page.xmin_hint == pg::XminHint::Committed);
  CHECK(d.dirty);
  CHECK(d.hint_dirty);
}

TEST_CASE("SetHintBits: one CLOG lookup for a whole table of one transaction (single-entry cache)", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Flushed);
  pg::HeapPassCounts first, second;
  c.rig.run([&]() {
    c.finish_insert();
    first  = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
    second = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(first.clog_lookups == 1);
  CHECK(c.rig.clog.stats().cache_hits == c.rig.clog.stats().fetches - 1);
  // The second scan finds every tuple hinted: no lookups, no hints.
  CHECK(second.clog_lookups == 0);
  CHECK(second.hints_set == 0);
  CHECK(second.visible == 40);
}

TEST_CASE("SetHintBits: an unflushed asynchronous commit is visible but not hinted (rule 'flushed')", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Unflushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    counts = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.visible == 40);
  CHECK(counts.hints_set == 0);
  CHECK(counts.hints_refused == 40);
  CHECK(c.rig.counters.dirtied_by_hints == 0);
}

TEST_CASE("SetHintBits: the page-LSN exception allows the hint when the page is past the commit record", "[seqscan]")
{
  HintCase c(pg::HintBitRule::FlushedOrPageLsn, Commit::Unflushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    // Block 1 was changed by WAL after the commit record; the other pages are older.
    c.rel.stored(1).lsn = c.commit_lsn + 100;
    counts              = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.hints_set == 10);
  CHECK(counts.hints_refused == 30);
  CHECK(c.rig.counters.dirtied_by_hints == 1);
}

TEST_CASE("SetHintBits: with the flush test removed ('always') every tuple is hinted at once", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Always, Commit::Unflushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    counts = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.hints_set == 40);
  CHECK(counts.hints_refused == 0);
}

TEST_CASE("HeapTupleSatisfiesMVCC: an aborted xmin is invisible and hinted HEAP_XMIN_INVALID", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Aborted);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    counts = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.visible == 0);
  CHECK(counts.hints_set == 40);
  CHECK(c.rel.stored(0).xmin_hint == pg::XminHint::None); // hinted in shared_buffers, not yet on disk
  const int buf = c.rig.pool.BufTableLookup(pg::BufferTag{16384, 0});
  REQUIRE(buf >= 0);
  const pg::BufferDesc& d = c.rig.pool.GetBufferDescriptor(buf);
  CHECK(d.page.xmin_hint == pg::XminHint::Invalid);
}

TEST_CASE("HeapTupleSatisfiesMVCC: rows of a transaction still running for the snapshot are not seen", "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Flushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    c.rig.backend.snapshot.xmin = kXid; // a snapshot taken before the load committed
    c.rig.backend.snapshot.xmax = kXid;
    counts                      = c.scanner.ExecSeqScanSum(c.rig.io, c.table);
  });
  CHECK(counts.visible == 0);
  CHECK(counts.hints_set == 0);
  CHECK(counts.clog_lookups == 0);
}

TEST_CASE("VACUUM: hints every tuple and marks pages all-visible, a real change written regardless of policy",
          "[seqscan]")
{
  HintCase c(pg::HintBitRule::Flushed, Commit::Flushed);
  pg::HeapPassCounts counts;
  c.rig.run([&]() {
    c.finish_insert();
    counts = c.scanner.lazy_scan_heap(c.rig.io, c.table);
  });
  CHECK(counts.hints_set == 40);
  CHECK(counts.all_visible == 4);
  // VACUUM's ring is NBuffers / 8 = 2 buffers: blocks 0 and 1 were written as it went round, as
  // real changes (not hint-only), blocks 2 and 3 are still dirty in shared_buffers.
  CHECK(c.rig.counters.writes == 2);
  CHECK(c.rig.counters.hint_writes == 0);
  CHECK(c.rel.stored(0).all_visible);
  CHECK(c.rel.stored(0).xmin_hint == pg::XminHint::Committed);
  for (std::uint32_t b = 2; b < 4; b++) {
    const int buf = c.rig.pool.BufTableLookup(pg::BufferTag{16384, b});
    REQUIRE(buf >= 0);
    CHECK(c.rig.pool.GetBufferDescriptor(buf).dirty);
    CHECK_FALSE(c.rig.pool.GetBufferDescriptor(buf).hint_dirty);
  }
}

TEST_CASE("LimitHintBitWrites: one hint-only write per 1/limit allocations, at most one banked", "[seqscan]")
{
  pg::LimitHintBitWrites policy(0.25);
  for (int i = 0; i < 3; i++) {
    policy.on_buffer_alloc();
    CHECK_FALSE(policy.write_hint_dirty_buffer());
  }
  policy.on_buffer_alloc();
  CHECK(policy.write_hint_dirty_buffer());
  CHECK_FALSE(policy.write_hint_dirty_buffer());
  for (int i = 0; i < 40; i++) policy.on_buffer_alloc();
  CHECK(policy.write_hint_dirty_buffer());
  CHECK_FALSE(policy.write_hint_dirty_buffer());

  pg::LimitHintBitWrites twentieth(0.05);
  int writes = 0;
  for (int i = 0; i < 200; i++) {
    twentieth.on_buffer_alloc();
    if (twentieth.write_hint_dirty_buffer()) writes++;
  }
  CHECK(writes == 10);
  CHECK_THROWS(pg::LimitHintBitWrites(1.5));
  pg::WriteAllDirtyBuffers all;
  CHECK(all.write_hint_dirty_buffer());
}

TEST_CASE("heap_layout: the tuple size and rows per page come from the column types", "[seqscan]")
{
  pg::TableSpec fixed;
  fixed.rows              = 1000000;
  fixed.columns           = {{"g", "int4", "", 1, 0}, {"t", "text", "fixed", 4, 17}};
  const pg::TupleLayout f = pg::heap_layout(fixed, 0);
  // int4 (4) + a short varlena (1 + 68) = 73 bytes behind a 24-byte header: 97, MAXALIGNed 104.
  CHECK(f.data_bytes == 73);
  CHECK(f.tuple_bytes == 104);
  CHECK(f.tuple_bytes == pg::heap_tuple_bytes(73, false));
  CHECK(f.rows_per_page == 75); // 75 x (104 + 4) = 8100 <= 8168 < 76 x 108
  CHECK(f.nblocks == 13334);

  pg::TableSpec wide;
  wide.rows    = 10;
  wide.columns = {{"a", "int4", "", 1, 0}, {"b", "int8", "", 1, 0}, {"t", "text", "fixed", 1, 200}};
  // int4 at 0, int8 aligned to 8, a long varlena aligned to 4 behind a 4-byte header.
  CHECK(pg::heap_layout(wide, 0).data_bytes == 8 + 8 + 4 + 200);

  pg::TableSpec random_text = fixed;
  random_text.columns[1]    = {"t", "text", "random()::text", 4, 0};
  const pg::TupleLayout r   = pg::heap_layout(random_text, 0);
  const double mean_value   = (r.data_bytes - 5) / 4;
  CHECK(mean_value > 16.9); // "0." and 15 significant digits, less stripped trailing zeros,
  CHECK(mean_value < 17.1); // more leading ones
  CHECK(r.rows_per_page >= 75);
  CHECK(r.rows_per_page <= 80);
  CHECK(pg::heap_layout(random_text, 1).data_bytes > r.data_bytes); // shortest-exact output is longer
}

TEST_CASE("float8out_length: 15 significant digits before PostgreSQL 12, shortest exact after", "[seqscan]")
{
  CHECK(pg::float8out_length(0.5, 0) == 3);
  CHECK(pg::float8out_length(0.123456789012345678, 0) == 17);
  CHECK(pg::float8out_length(0.0123456789012345678, 0) == 18);
  CHECK(pg::float8out_length(0.123456789012345678, -5) == 11); // "0.123456789": 10 digits, a zero stripped
  CHECK(pg::float8out_length(0.1, 1) == 3);
  CHECK(pg::float8out_length(1.0 / 3.0, 1) == 18);
}
