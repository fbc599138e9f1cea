/* Wiring and running the sequential-scan workload. See scan_run.hpp. */
#include "models/scan_run.hpp"

#include "models/bgwriter.hpp"
#include "models/clog.hpp"
#include "models/hint_io.hpp"
#include "models/version.hpp"
#include "models/wait_event.hpp"
#include "models/xlog.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>

namespace pg {

namespace {

constexpr std::uint32_t kRelNode = 16384; // FirstNormalObjectId: the first user table
// The loading transaction: any normal transaction id will do, as long as it is the only one.
constexpr TransactionId kLoadXid = 1000;
// xl_xact_commit behind an XLogRecord header, and a checkpoint record.
constexpr double kCommitRecord          = 24 + 2 + 8 + 4;
constexpr double kCheckpointRecord      = 24 + 2 + 88;
constexpr std::uint64_t kAbsorberStream = 0x41425342;
// The run ends when the series does; the measurement window only has to outlast it.
constexpr double kOpenEnded = 1e9;

int NBuffersOf(const Settings& s)
{
  return static_cast<int>(s.shared_buffers / BLCKSZ);
}

OsCacheParams os_cache_params(const Scenario& s)
{
  OsCacheParams p;
  p.capacity_bytes = s.scan.ram - s.settings.shared_buffers;
  p.read_syscall   = s.scan.pread;
  p.read_per_kb    = s.scan.pread_per_kb;
  p.write_syscall  = s.hardware.os.pwrite;
  p.write_per_kb   = s.hardware.os.pwrite_per_kb;
  p.fsync_cpu      = s.hardware.os.fdatasync_cpu;
  return p;
}

SyncQueueParams sync_queue_params(const Scenario& s)
{
  SyncQueueParams p;
  p.max_requests = s.scan.fsync_request_queue_size > 0 ? s.scan.fsync_request_queue_size : NBuffersOf(s.settings);
  p.compaction   = s.scan.fsync_queue_compaction;
  p.wakeup       = s.scan.fsync_queue_wakeup;
  p.forward_ns   = s.scan.costs.forward_sync_request;
  p.compact_ns   = s.scan.costs.compact_per_request;
  p.absorb_ns    = s.scan.costs.absorb_per_request;
  p.set_latch    = s.hardware.os.signal;
  return p;
}

BufferCosts buffer_costs(const Scenario& s)
{
  return BufferCosts{s.scan.costs.buffer_lookup, s.scan.costs.buffer_alloc, s.costs.buffer_pin,
                     s.scan.costs.flush_buffer};
}

/// The 9.1 background writer absorbs every bgwriter_delay; the checkpointer sleeps until a
/// checkpoint is due unless a backend nudges it.
double absorber_delay(const Scenario& s)
{
  return s.scan.fsync_queue_wakeup == SyncQueueWakeup::BgWriterDelay ? s.scan.bgwriter_delay
                                                                     : s.settings.checkpoint_timeout;
}

/// Everything one run simulates, in construction order.
struct Machine {
  Machine(const Scenario& s, const std::vector<std::string>& args)
      : scenario(s), simulation(args), events(names), cpu(s.hardware.cpu), wal_device(s.hardware.wal_device, s.run.seed, "wal_device"),
        data_device(s.hardware.data_device, s.run.seed, "data_device"), xlog(s, events, wal_device), clog(s, events, xlog),
        pool(NBuffersOf(s.settings)),
        os(os_cache_params(s),
           OsCacheEvents{events.IoDataFileRead, events.IoDataFileWrite, names.intern("IO:DataFileSync")}, data_device),
        sync(sync_queue_params(s), names.intern("LWLock:CheckpointerComm"), s.policies.lwlock),
        bufmgr(pool, os, sync, xlog, buffer_costs(s), s.settings.wal_log_hints),
        layout(heap_layout(s.scan.table, s.scan.extra_float_digits)),
        rel(s.scan.table.name, kRelNode, layout.nblocks), table{rel, s.scan.table.rows, layout.rows_per_page, kLoadXid},
        backend("backend 0", 0, cpu, sim::Rng(s.run.seed, 0)),
        absorber_backend(s.scan.fsync_queue_wakeup == SyncQueueWakeup::BgWriterDelay ? "bgwriter" : "checkpointer", 1,
                         cpu, sim::Rng(s.run.seed, kAbsorberStream)),
        absorber(absorber_backend.proc, sync, absorber_delay(s), s.scan.costs.bgwriter_loop,
                 names.intern(s.scan.fsync_queue_wakeup == SyncQueueWakeup::BgWriterDelay
                                  ? "Activity:BgWriterMain"
                                  : "Activity:CheckpointerMain")),
        scanner(s, bufmgr, clog, xlog),
        hint_io(make_hint_bit_io_policy(s.scan.hint_bit_io, s.scan.hint_bit_io_limit)), io{backend, *hint_io, counters},
        client_read(events.ClientRead)
  {
    bufmgr.add_relation(rel);
  }

  const Scenario& scenario;
  sim::Simulation simulation;
  sim::WaitEventNames names;
  WaitEvents events;
  sim::Cpu cpu;
  sim::Nvme wal_device;
  sim::Nvme data_device;
  Xlog xlog;
  Clog clog;
  BufferPool pool;
  OsPageCache os;
  SyncRequestQueue sync;
  BufferManager bufmgr;
  TupleLayout layout;
  SmgrRelation rel;
  ScanTable table;
  Backend backend;
  Backend absorber_backend;
  BgWriter absorber;
  HeapScanner scanner;
  std::unique_ptr<HintBitIoPolicy> hint_io;
  IoCounters counters;
  BackendIo io;
  sim::WaitEventId client_read;
};

/// `create table ... as select ...; checkpoint;`: one transaction wrote every page through a
/// bulk-write ring without WAL (wal_level = minimal, 9.1's default) and synced the table
/// (heap_sync); its commit record is flushed; the checkpoint moved the redo pointer. The pages
/// carry no hint bits: the rows' inserting transaction was running while they were written.
void load_table(Machine& m)
{
  Backend& me             = m.backend;
  const XLogRecPtr commit = m.xlog.XLogInsert(me, XLogRecordData{kCommitRecord, 0});
  m.xlog.XLogFlush(me, commit);
  m.clog.TransactionIdSetTreeStatus(me, kLoadXid, XidStatus::Committed, commit);
  BufferAccessStrategy ring = GetAccessStrategy(BufferAccessStrategyType::BulkWrite, m.pool.NBuffers());
  m.bufmgr.load_through_ring(m.rel, ring);
  for (std::uint32_t first = 0; first < m.rel.nblocks(); first += RELSEG_SIZE)
    m.os.preload_clean(m.rel.os_file(first), std::min(RELSEG_SIZE, m.rel.nblocks() - first));
  m.xlog.start_checkpoint(me);
  m.xlog.XLogFlush(me, m.xlog.XLogInsert(me, XLogRecordData{kCheckpointRecord, 0}));
  // Later statements' snapshots: nothing runs, the loading transaction is in the past.
  me.snapshot.xmin = kLoadXid + 1;
  me.snapshot.xmax = kLoadXid + 1;
  me.snapshot.xip.clear();
  me.RecentXmin = kLoadXid + 1;
}

std::uint64_t unhinted_pages(const SmgrRelation& rel)
{
  std::uint64_t n = 0;
  for (std::uint32_t b = 0; b < rel.nblocks(); b++)
    if (rel.stored(b).xmin_hint == XminHint::None) n++;
  return n;
}

template <typename Body>
ScanPass timed_pass(Machine& m, const std::string& kind, int run, Body body)
{
  sim::Proc& proc = m.backend.proc;
  // The client's think time: the query arrives after it, to an idle backend.
  proc.block_until(sim::Simulation::now() + m.scenario.scan.think_time, m.client_read);
  m.counters                       = IoCounters{};
  const SyncQueueStats sync_before = m.sync.stats();
  proc.flush();
  proc.set_active(true);
  const double start = sim::Simulation::now();
  ScanPass pass;
  pass.kind = kind;
  pass.run  = run;
  pass.heap = body();
  proc.flush();
  pass.seconds = sim::Simulation::now() - start;
  proc.set_active(false);
  pass.io             = m.counters;
  pass.compactions    = m.sync.stats().compactions - sync_before.compactions;
  pass.compacted      = m.sync.stats().compacted - sync_before.compacted;
  pass.absorbed       = m.sync.stats().absorbed - sync_before.absorbed;
  pass.unhinted_after = unhinted_pages(m.rel);
  return pass;
}

void run_series(Machine& m, ScanRunResult& r)
{
  load_table(m);
  if (m.scenario.scan.vacuum_first)
    r.passes.push_back(timed_pass(m, "vacuum", 0, [&m]() { return m.scanner.lazy_scan_heap(m.io, m.table); }));
  for (int run = 1; run <= m.scenario.scan.scans; run++)
    r.passes.push_back(timed_pass(m, "scan", run, [&m]() { return m.scanner.ExecSeqScanSum(m.io, m.table); }));
}

void describe(const Scenario& s, const Machine& m, ScanRunResult& r)
{
  r.scenario_file     = s.file;
  r.seed              = s.run.seed;
  r.resolved          = s.resolved;
  r.table             = s.scan.table.name;
  r.rows              = s.scan.table.rows;
  r.layout            = m.layout;
  r.NBuffers          = m.pool.NBuffers();
  r.ring_buffers      = m.layout.nblocks > static_cast<std::uint32_t>(r.NBuffers / 4)
                            ? GetAccessStrategy(BufferAccessStrategyType::BulkRead, r.NBuffers).ring_size()
                            : 0;
  r.queue_size        = m.sync.queue().max_requests();
  r.ram               = s.scan.ram;
  r.os_cache_bytes    = static_cast<double>(m.os.capacity_pages()) * BLCKSZ;
  r.hint_bit_io       = to_string(s.scan.hint_bit_io);
  r.hint_bit_io_limit = s.scan.hint_bit_io_limit;
  r.compaction        = s.scan.fsync_queue_compaction;
  r.queue_wakeup      = to_string(s.scan.fsync_queue_wakeup);
  r.think_time        = s.scan.think_time;
}

} // namespace

std::vector<ScanPass> ScanRunResult::scans() const
{
  std::vector<ScanPass> out;
  for (const ScanPass& p : passes)
    if (p.kind == "scan") out.push_back(p);
  return out;
}

ScanRunResult run_scan_scenario(const Scenario& s, const std::vector<std::string>& simgrid_args)
{
  if (s.run.workload != "seqscan") throw std::logic_error("run_scan_scenario: run.workload is not seqscan");
  Machine m(s, simgrid_args);
  ScanRunResult r;
  describe(s, m, r);
  std::exception_ptr failure;
  m.simulation.spawn(m.absorber_backend.proc.name(), [&m]() { m.absorber.main(); });
  m.simulation.spawn(m.backend.proc.name(), [&m, &r, &failure]() {
    try {
      run_series(m, r);
    } catch (...) {
      failure = std::current_exception();
    }
    // The series is the run: stop the absorber and the run control with it.
    simgrid::s4u::Actor::kill_all();
  });
  sim::Window w;
  w.warmup   = 0;
  w.duration = kOpenEnded;
  m.simulation.run(w, nullptr, nullptr, nullptr);
  if (failure) std::rethrow_exception(failure);
  r.os           = m.os.stats();
  r.sync         = m.sync.stats();
  r.wall_seconds = m.simulation.wall_seconds();
  r.peak_rss_kb  = sim::peak_rss_kb();
  return r;
}

void print_scan_summary(std::ostream& out, const ScanRunResult& r)
{
  char line[512];
  std::snprintf(line, sizeof line, "table %s: %llu rows, %d-byte tuples, %d rows per page, %u pages (%.1f MB)\n",
                r.table.c_str(), static_cast<unsigned long long>(r.rows), r.layout.tuple_bytes, r.layout.rows_per_page,
                r.layout.nblocks, r.layout.table_bytes() / 1048576.0);
  out << line;
  std::snprintf(line, sizeof line,
                "shared_buffers: %d buffers (%.1f MB), scan ring: %d buffers; OS page cache: %.0f MB of %.0f MB RAM\n",
                r.NBuffers, r.NBuffers * 8192.0 / 1048576.0, r.ring_buffers, r.os_cache_bytes / 1048576.0,
                r.ram / 1048576.0);
  out << line;
  std::snprintf(line, sizeof line,
                "hint-bit I/O: %s (limit %.3g); fsync request queue: %d entries, compaction %s, absorbed on %s\n",
                r.hint_bit_io.c_str(), r.hint_bit_io_limit, r.queue_size, r.compaction ? "on" : "off",
                r.queue_wakeup.c_str());
  out << line;
  out << "pass     time_ms   reads    hits  evictions  reuses  writes  hint_writes  hint_skipped  fsync_requests"
         "  compactions  fsyncs  unhinted_after\n";
  for (const ScanPass& p : r.passes) {
    const std::string name = p.kind == "vacuum" ? "vacuum" : std::to_string(p.run);
    std::snprintf(
        line, sizeof line, "%-6s %9.1f %7llu %7llu %10llu %7llu %7llu %12llu %13llu %15llu %12llu %7llu %15llu\n",
        name.c_str(), p.seconds * 1e3, static_cast<unsigned long long>(p.io.reads),
        static_cast<unsigned long long>(p.io.hits), static_cast<unsigned long long>(p.io.evictions),
        static_cast<unsigned long long>(p.io.reuses), static_cast<unsigned long long>(p.io.writes),
        static_cast<unsigned long long>(p.io.hint_writes), static_cast<unsigned long long>(p.io.hint_writes_skipped),
        static_cast<unsigned long long>(p.io.fsync_requests), static_cast<unsigned long long>(p.compactions),
        static_cast<unsigned long long>(p.io.fsyncs), static_cast<unsigned long long>(p.unhinted_after));
    out << line;
  }
}

namespace {
nlohmann::ordered_json pass_json(const ScanPass& p)
{
  nlohmann::ordered_json j;
  j["kind"]         = p.kind;
  j["run"]          = p.run;
  j["time_ms"]      = p.seconds * 1e3;
  j["pg_stat_io"]   = {{"reads", p.io.reads},
                       {"hits", p.io.hits},
                       {"evictions", p.io.evictions},
                       {"reuses", p.io.reuses},
                       {"writes", p.io.writes},
                       {"fsyncs", p.io.fsyncs},
                       {"read_time_ms", p.io.read_time * 1e3},
                       {"write_time_ms", p.io.write_time * 1e3},
                       {"fsync_time_ms", p.io.fsync_time * 1e3}};
  j["hint_bits"]    = {{"set", p.heap.hints_set},
                       {"refused", p.heap.hints_refused},
                       {"buffers_dirtied", p.io.dirtied_by_hints},
                       {"hint_writes", p.io.hint_writes},
                       {"hint_writes_skipped", p.io.hint_writes_skipped},
                       {"unhinted_pages_after", p.unhinted_after}};
  j["fsync_queue"]  = {{"requests", p.io.fsync_requests},
                       {"compactions", p.compactions},
                       {"compacted", p.compacted},
                       {"absorbed", p.absorbed}};
  j["tuples"]       = p.heap.tuples;
  j["sum"]          = p.heap.visible;
  j["clog_lookups"] = p.heap.clog_lookups;
  j["all_visible"]  = p.heap.all_visible;
  j["rejected"]     = p.io.rejected;
  return j;
}
} // namespace

namespace {
/// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double pct)
{
  const auto rank = static_cast<std::size_t>(std::ceil(pct / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank > 0 ? rank - 1 : 0)];
}

/// The series as pgbench summarises a run of `select sum(1) from s` queries: one transaction per
/// scan, latency as psql's \timing shows it (the think time between scans not included), tps
/// over the whole series, think time included. Sweeps read these figures.
nlohmann::ordered_json pgbench_summary(const ScanRunResult& r)
{
  std::vector<double> ms;
  double elapsed = 0;
  for (const ScanPass& p : r.scans()) {
    ms.push_back(p.seconds * 1e3);
    elapsed += p.seconds + r.think_time;
  }
  if (ms.empty()) return nlohmann::ordered_json::object();
  double sum = 0, sq = 0;
  for (const double v : ms) sum += v;
  const double mean = sum / static_cast<double>(ms.size());
  for (const double v : ms) sq += (v - mean) * (v - mean);
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  return {{"script", "select sum(1) from " + r.table},
          {"transactions", ms.size()},
          {"duration_s", elapsed},
          {"tps", static_cast<double>(ms.size()) / elapsed},
          {"latency_ms",
           {{"average", mean},
            {"stddev", std::sqrt(sq / static_cast<double>(ms.size()))},
            {"p50", percentile(sorted, 50)},
            {"p95", percentile(sorted, 95)},
            {"p99", percentile(sorted, 99)}}}};
}
} // namespace

nlohmann::ordered_json to_json(const ScanRunResult& r, bool with_host)
{
  using nlohmann::ordered_json;
  ordered_json j;
  j["simulator"]      = {{"walsim", walsim_version()}, {"simgrid", simgrid_version()}, {"seed", r.seed}};
  j["scenario"]       = {{"file", r.scenario_file}, {"resolved", r.resolved}};
  j["table"]          = {{"name", r.table},
                         {"rows", r.rows},
                         {"data_bytes", r.layout.data_bytes},
                         {"tuple_bytes", r.layout.tuple_bytes},
                         {"rows_per_page", r.layout.rows_per_page},
                         {"pages", r.layout.nblocks},
                         {"bytes", r.layout.table_bytes()}};
  j["buffers"]        = {{"NBuffers", r.NBuffers},
                         {"ring_buffers", r.ring_buffers},
                         {"os_page_cache_bytes", r.os_cache_bytes},
                         {"ram_bytes", r.ram}};
  j["pgbench"]        = pgbench_summary(r);
  j["policies"]       = {{"hint_bit_io", r.hint_bit_io},
                         {"hint_bit_io_limit", r.hint_bit_io_limit},
                         {"fsync_queue_size", r.queue_size},
                         {"fsync_queue_compaction", r.compaction},
                         {"fsync_queue_wakeup", r.queue_wakeup}};
  ordered_json passes = ordered_json::array();
  for (const ScanPass& p : r.passes) passes.push_back(pass_json(p));
  j["passes"]        = passes;
  j["os_page_cache"] = {{"hits", r.os.hits},
                        {"misses", r.os.misses},
                        {"writes", r.os.writes},
                        {"fsyncs", r.os.fsyncs},
                        {"pages_written_back", r.os.pages_written_back},
                        {"evictions", r.os.evictions}};
  j["fsync_queue"]   = {{"requests", r.sync.requests},   {"compactions", r.sync.compactions},
                        {"compacted", r.sync.compacted}, {"backend_fsync", r.sync.backend_fsync},
                        {"absorbed", r.sync.absorbed},   {"absorbs", r.sync.absorbs},
                        {"nudges", r.sync.nudges}};
  if (with_host) j["host"] = {{"wall_seconds", r.wall_seconds}, {"peak_rss_kb", r.peak_rss_kb}};
  return j;
}

} // namespace pg
