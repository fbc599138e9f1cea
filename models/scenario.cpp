/* Reading a scenario document into typed settings. Every key a scenario may carry is declared
 * here, with its type, default and range; see scenario.hpp and README.md.
 *
 * Costs and hardware latencies have no defaults in code: they are data, and live in the
 * scenario or the files it extends (scenarios/hardware/, scenarios/costs/). PostgreSQL settings
 * default to PostgreSQL 15's values.
 */
#include "models/scenario.hpp"

#include "models/heap_geometry.hpp"
#include "models/pgbench_tables.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace pg {

using sim::config::Object;

namespace {

constexpr double kB = 1024.0;
constexpr double MB = 1024.0 * kB;
constexpr double GB = 1024.0 * MB;
constexpr double TB = 1024.0 * GB;

template <typename E>
using Names = std::vector<std::pair<std::string, E>>;

const Names<WalWriterWakeup> kWakeups        = {{"always", WalWriterWakeup::Always},
                                                {"unflushed_page", WalWriterWakeup::UnflushedPage},
                                                {"unwritten_page", WalWriterWakeup::UnwrittenPage},
                                                {"hibernating", WalWriterWakeup::Hibernating}};
const Names<WalWriterFlush> kFlushes         = {{"all_written", WalWriterFlush::AllWritten},
                                                {"delay_or_flush_after", WalWriterFlush::DelayOrFlushAfter}};
const Names<HintBitRule> kHintRules          = {{"always", HintBitRule::Always},
                                                {"flushed", HintBitRule::Flushed},
                                                {"flushed_or_page_lsn", HintBitRule::FlushedOrPageLsn}};
const Names<InProgressTest> kInProgressTests = {{"snapshot", InProgressTest::Snapshot},
                                                {"procarray", InProgressTest::ProcArray}};
const Names<Script> kScripts                 = {{"tpcb-like", Script::TpcbLike},
                                                {"simple-update", Script::SimpleUpdate},
                                                {"select-only", Script::SelectOnly},
                                                {"tpcb-func", Script::TpcbFunc},
                                                {"insert-only", Script::InsertOnly}};
const Names<Protocol> kProtocols             = {
                {"simple", Protocol::Simple}, {"extended", Protocol::Extended}, {"prepared", Protocol::Prepared}};

template <typename E>
E choose(Object& o, const std::string& key, const std::string& def, const Names<E>& names)
{
  std::vector<std::string> allowed;
  for (const auto& entry : names) allowed.push_back(entry.first);
  const std::string chosen = o.choice(key, def, allowed);
  for (const auto& entry : names)
    if (entry.first == chosen) return entry.second;
  return names.front().second;
}

template <typename E>
std::string name_of(E value, const Names<E>& names)
{
  for (const auto& entry : names)
    if (entry.second == value) return entry.first;
  return "?";
}

/// A PostgreSQL boolean GUC, written "on" or "off" as in postgresql.conf.
bool guc_bool(Object& o, const std::string& key, bool def)
{
  return o.choice(key, def ? "on" : "off", {"on", "off"}) == "on";
}

sim::NvmeParams read_device(Object o)
{
  sim::NvmeParams d;
  d.queue_depth   = static_cast<int>(o.integer("queue_depth", std::nullopt, 1, 65536));
  d.read_latency  = o.duration("read_latency", std::nullopt, 0, 1);
  d.write_latency = o.duration("write_latency", std::nullopt, 0, 1);
  d.flush_latency = o.duration("flush_latency", std::nullopt, 0, 1);
  d.bandwidth     = o.bandwidth("bandwidth", std::nullopt, 1e6, 1e12);
  d.latency_sigma = o.number("latency_sigma", 0.0, 0, 3);
  if (o.has("stalls")) {
    Object stalls    = o.object("stalls");
    d.stall_every    = stalls.duration("every", std::nullopt, 1e-3, 86400);
    d.stall_duration = stalls.duration("duration", std::nullopt, 0, 10);
  }
  return d;
}

void read_cpu(Object o, sim::CpuParams& c)
{
  c.sockets          = static_cast<int>(o.integer("sockets", 1, 1, 64));
  c.cores_per_socket = static_cast<int>(o.integer("cores_per_socket", std::nullopt, 1, 1024));
  c.threads_per_core = static_cast<int>(o.integer("threads_per_core", 1, 1, 8));
  c.clock_hz         = o.frequency("clock", std::nullopt, 1e8, 1e11);
  c.reference_hz     = o.frequency("reference_clock", "3GHz", 1e8, 1e11);
  c.smt_throughput   = o.number("smt_throughput", 1.0, 0.5, 8);
  Object line        = o.object("cache_line");
  c.line_hit         = line.duration("hit", std::nullopt, 0, 1e-6);
  c.line_local       = line.duration("local", std::nullopt, 0, 1e-5);
  c.line_remote      = line.duration("remote", std::nullopt, 0, 1e-5);
  c.line_contention  = line.number("contention", std::nullopt, 0, 10);
  c.line_parallelism = line.number("parallel_misses", 4, 1, 64);
  // A core's private cache, for what processes pay to refill it after others ran (optional).
  Object cache      = o.object("cache");
  c.cache_size      = cache.size("size", "0B", 0, 1e9);
  c.refill_per_byte = cache.duration("refill_per_kB", "0s", 0, 1e-3) / 1024;
  c.migration_cost  = cache.duration("migration_cost", "500us", 0, 1);
  // The socket's last-level cache, for what the working set lost from it costs (optional).
  if (o.has("shared_cache") && c.cache_size <= 0)
    o.fail("shared_cache", "needs the private cache (cpu.cache.size) as its upper level");
  Object shared            = o.object("shared_cache");
  c.shared_cache_size      = shared.size("size", "0B", 0, 1e10);
  c.shared_refill_per_byte = shared.duration("refill_per_kB", "0s", 0, 1e-3) / 1024;
  // The address translations a socket keeps, for what backends pay to re-create theirs (optional).
  Object translation    = o.object("translation");
  c.translation_entries = translation.number("entries", 0, 0, 1e9);
  c.translation_refault = translation.duration("refault", "0s", 0, 1e-3);
  if (o.has("translation") && c.translation_entries <= 0) o.fail("translation", "needs entries above 0");
  // The address spaces a hardware thread keeps ready, for what a switch to another costs (optional).
  Object spaces          = o.object("address_spaces");
  c.address_spaces       = spaces.number("entries", 0, 0, 1e6);
  c.address_space_reload = spaces.duration("reload", "0s", 0, 1e-3);
  if (o.has("address_spaces") && c.address_spaces <= 0) o.fail("address_spaces", "needs entries above 0");
}

// Pages of shared memory a backend touches per transaction, by pgbench script (absent: 0).
std::map<Script, double> read_pages_by_script(Object o)
{
  std::map<Script, double> pages;
  for (const auto& [name, script] : kScripts) pages[script] = o.number(name, 0, 0, 1e7);
  return pages;
}

// CFS's sysctl_sched_wakeup_granularity: 1 ms scaled by 1 + log2 of the CPUs, at most 8
// (SCHED_TUNABLESCALING_LOG, kernel/sched/fair.c of 2.6.32-6.5).
double default_wakeup_granularity(const sim::CpuParams& c)
{
  const int cpus = std::min(8, c.sockets * c.cores_per_socket * c.threads_per_core);
  return 1e-3 * (1 + std::floor(std::log2(std::max(1, cpus))));
}

void read_wakeup_preemption(Object o, sim::CpuParams& c)
{
  const bool preempt    = o.boolean("wakeup_preemption", false);
  const double fallback = default_wakeup_granularity(c);
  const double gran     = o.duration("wakeup_granularity", std::to_string(std::lround(fallback * 1e6)) + "us", 1e-6, 1);
  c.wakeup_preemption   = preempt;
  c.wakeup_granularity  = gran;
  if (preempt && c.scheduler == sim::Scheduler::Fifo)
    o.fail("wakeup_preemption",
           "expected false with scheduler fifo (wake-up preemption is modelled for cfs and eevdf)");
}

void read_page_faults(Object o, sim::PageFaultParams& f)
{
  f.read              = o.duration("page_fault_read", "0s", 0, 0.01);
  f.write             = o.duration("page_fault_write", "0s", 0, 0.01);
  f.first_touch       = o.duration("page_first_touch", "0s", 0, 0.01);
  const double around = o.size("fault_around", "64kB", 4096, 2 * 1024 * 1024);
  if (std::fmod(around, 4096) != 0)
    o.fail("fault_around", "expected a multiple of 4kB (fault_around_bytes is rounded to whole pages)");
  f.fault_around = static_cast<int>(around / 4096);
}

// A taskset-style CPU list: distinct hardware-thread numbers of this machine.
std::vector<int> read_cpu_list(Object o, const std::string& key, int slots)
{
  std::vector<int> cpus;
  for (double v : o.numbers(key, std::vector<double>{}, 0, slots - 1)) {
    const int cpu = static_cast<int>(v);
    if (cpu != v || std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) {
      o.fail(key, "expected distinct CPU numbers from 0 to " + std::to_string(slots - 1));
      return {};
    }
    cpus.push_back(cpu);
  }
  return cpus;
}

// Absent, a read() of a cached page costs what a write() into the page cache does.
void read_os(Object o, sim::CpuParams& c, OsCosts& os)
{
  c.time_slice                = o.duration("time_slice", std::nullopt, 1e-5, 1);
  const std::string scheduler = o.choice("scheduler", "cfs", {"cfs", "eevdf", "fifo"});
  c.scheduler                 = scheduler == "eevdf"  ? sim::Scheduler::Eevdf
                                : scheduler == "fifo" ? sim::Scheduler::Fifo
                                                      : sim::Scheduler::Cfs;
  c.idle_wakeup               = o.duration("idle_wakeup", std::nullopt, 0, 0.1);
  c.idle_wakeup_cpu           = o.duration("idle_wakeup_cpu", std::nullopt, 0, 0.1);
  c.context_switch            = o.duration("context_switch", std::nullopt, 0, 0.1);
  c.busy_wakeup_cpu           = o.duration("busy_wakeup_cpu", "0s", 0, 0.1);
  c.busy_io_delay             = o.duration("busy_io_delay", "0s", 0, 0.1);
  c.io_interrupt_cpu          = static_cast<int>(o.integer("io_interrupt_cpu", -1, -1, 65535));
  c.busy_io_interrupt         = o.duration("busy_io_interrupt", "0s", 0, 0.01);
  os.futex_wake               = o.duration("futex_wake", std::nullopt, 0, 0.01);
  os.signal                   = o.duration("signal", std::nullopt, 0, 0.01);
  os.signal_handler           = o.duration("signal_handler", "1us", 0, 0.01);
  os.wait_set                 = o.duration("wait_set", "2us", 0, 0.01);
  os.pwrite                   = o.duration("pwrite", std::nullopt, 0, 0.01);
  os.pwrite_per_kb            = o.duration("pwrite_per_kB", std::nullopt, 0, 0.01);
  os.pread                    = o.has("pread") ? o.duration("pread", std::nullopt, 0, 0.01) : os.pwrite;
  os.pread_per_kb  = o.has("pread_per_kB") ? o.duration("pread_per_kB", std::nullopt, 0, 0.01) : os.pwrite_per_kb;
  os.fdatasync_cpu = o.duration("fdatasync_cpu", std::nullopt, 0, 0.1);
  if (o.has("kblockd_dispatch")) os.kblockd_dispatch = o.duration("kblockd_dispatch", std::nullopt, 0, 0.01);
  os.socket_send = o.duration("socket_send", std::nullopt, 0, 0.01);
  os.socket_recv = o.duration("socket_recv", std::nullopt, 0, 0.01);
  os.timer_slack = o.duration("timer_slack", "50us", 0, 0.1);
  read_page_faults(o, os.page_faults);
  const int slots = c.sockets * c.cores_per_socket * c.threads_per_core;
  os.server_cpus  = read_cpu_list(o, "server_cpus", slots);
  os.pgbench_cpus = read_cpu_list(o, "pgbench_cpus", slots);

  const std::string queues    = o.choice("run_queues", "global", {"global", "per_cpu"});
  c.run_queues                = queues == "per_cpu" ? sim::RunQueues::PerCpu : sim::RunQueues::Global;
  const std::string placement = o.choice("wake_placement", "idle_cpu", {"idle_cpu", "previous_cpu", "wake_affine"});
  c.wake_placement            = placement == "previous_cpu"  ? sim::WakePlacement::PreviousCpu
                                : placement == "wake_affine" ? sim::WakePlacement::WakeAffine
                                                             : sim::WakePlacement::IdleCpu;
  if (c.wake_placement != sim::WakePlacement::IdleCpu && c.run_queues != sim::RunQueues::PerCpu)
    o.fail("wake_placement", "expected idle_cpu with run_queues global (placement needs per-CPU run queues)");
  c.balance_tick     = o.duration("balance_tick", "4ms", 1e-5, 1);
  c.cache_nice_tries = static_cast<int>(o.integer("cache_nice_tries", 1, 0, 100));
  read_wakeup_preemption(o, c);
}

HardwareSpec read_hardware(Object o)
{
  HardwareSpec h;
  read_cpu(o.object("cpu"), h.cpu);
  read_os(o.object("os"), h.cpu, h.os);
  h.wal_device      = read_device(o.object("wal_device"));
  h.data_device     = read_device(o.object("data_device"));
  Object client     = o.object("client");
  h.separate_client = client.choice("host", "server", {"server", "separate"}) == "separate";
  h.client_cores    = static_cast<int>(client.integer("cores", 16, 1, 4096));
  h.network_latency = client.duration("network_latency", "0", 0, 1);
  if (h.separate_client && !h.os.pgbench_cpus.empty())
    o.object("os").fail("pgbench_cpus", "expected no pgbench_cpus when pgbench runs on a separate client host");
  return h;
}

Costs read_costs(Object o)
{
  // buffer_alloc and flush_buffer, charged only once the tables outgrow shared_buffers, default
  // to estimates from the code (9.1's figures of costs in the hint-bit I/O scenario).
  auto ns = [&o](const std::string& key, const std::optional<std::string>& fallback = std::nullopt) {
    return o.duration(key, fallback, 0, 1e-2) * 1e9;
  };
  Costs c{};
  c.protocol_simple                   = ns("protocol_simple");
  c.protocol_extended                 = ns("protocol_extended");
  c.protocol_prepared                 = ns("protocol_prepared");
  c.function_call                     = ns("function_call");
  c.begin_end                         = ns("begin_end");
  c.select_row                        = ns("select_row");
  c.update_row                        = ns("update_row");
  c.insert_row                        = ns("insert_row");
  c.index_descent                     = ns("index_descent");
  c.index_insert                      = ns("index_insert");
  c.heap_fetch                        = ns("heap_fetch");
  c.visibility_check                  = ns("visibility_check");
  c.snapshot                          = ns("snapshot");
  c.snapshot_per_proc                 = ns("snapshot_per_proc");
  c.xid_assign                        = ns("xid_assign");
  c.lock_manager                      = ns("lock_manager");
  c.commit                            = ns("commit");
  c.procarray_end                     = ns("procarray_end");
  c.clog_fetch                        = ns("clog_fetch");
  c.clog_set                          = ns("clog_set");
  c.hint_bit                          = ns("hint_bit");
  c.prune_per_tuple                   = ns("prune_per_tuple");
  c.buffer_pin                        = ns("buffer_pin");
  c.buffer_alloc                      = ns("buffer_alloc", "400ns");
  c.flush_buffer                      = ns("flush_buffer", "500ns");
  c.xlog_assemble                     = ns("xlog_assemble");
  c.xlog_crc_per_kb                   = ns("xlog_crc_per_kB");
  c.xlog_copy_per_kb                  = ns("xlog_copy_per_kB");
  c.xlog_page_init                    = ns("xlog_page_init");
  c.spinlock_section                  = ns("spinlock_section");
  c.lwlock_acquire                    = ns("lwlock_acquire");
  c.xlog_insert_lock_scan             = ns("xlog_insert_lock_scan");
  c.walwriter_loop                    = ns("walwriter_loop");
  c.client_command                    = ns("client_command");
  c.client_transaction                = ns("client_transaction");
  c.backend_working_set               = o.size("backend_working_set", "0B", 0, 1e9);
  c.shared_pages_per_transaction      = read_pages_by_script(o.object("shared_pages_per_transaction"));
  c.shared_huge_pages_per_transaction = read_pages_by_script(o.object("shared_huge_pages_per_transaction"));
  return c;
}

Settings read_settings(Object o)
{
  Settings s;
  s.shared_buffers = o.size("shared_buffers", "128MB", 128 * kB, 8 * TB); // PostgreSQL: INT_MAX / 2 buffers
  // Absent means -1: 1/32 of shared_buffers, as PostgreSQL's default.
  s.wal_buffers        = o.has("wal_buffers") ? o.size("wal_buffers", std::nullopt, 32 * kB, 64 * GB) : -1;
  s.synchronous_commit = o.choice("synchronous_commit", "on", {"on", "off", "local"}) != "off";
  // PostgreSQL's default, try, gives huge pages only where the kernel has some reserved, which the
  // scenario cannot know: it says which the server got.
  s.huge_pages             = o.choice("huge_pages", "off", {"off", "on"}) == "on";
  s.fsync                  = guc_bool(o, "fsync", true);
  s.full_page_writes       = guc_bool(o, "full_page_writes", true);
  s.wal_log_hints          = guc_bool(o, "wal_log_hints", false);
  s.wal_writer_delay       = o.duration("wal_writer_delay", "200ms", 1e-3, 10);
  s.wal_writer_flush_after = o.size("wal_writer_flush_after", "1MB", 0, 2 * GB);
  s.commit_delay           = o.duration("commit_delay", "0", 0, 0.1);
  s.commit_siblings        = static_cast<int>(o.integer("commit_siblings", 5, 0, 1000));
  s.checkpoint_timeout     = o.duration("checkpoint_timeout", "5min", 30, 86400);
  s.max_wal_size           = o.size("max_wal_size", "1GB", 2 * MB, 16 * TB);
  s.wal_segment_size       = o.size("wal_segment_size", "16MB", 1 * MB, 1 * GB);
  s.max_connections        = static_cast<int>(o.integer("max_connections", 100, 1, 262143));
  s.num_xloginsert_locks   = static_cast<int>(o.integer("NUM_XLOGINSERT_LOCKS", 8, 1, 1024));
  s.num_clog_buffers       = static_cast<int>(o.integer("NUM_CLOG_BUFFERS", -1, -1, 131072));
  if (s.num_clog_buffers == 0)
    o.fail("NUM_CLOG_BUFFERS", "expected -1 (computed from shared_buffers) or at least 1, got 0");
  s.bgwriter_delay          = o.duration("bgwriter_delay", "200ms", 0.01, 10);
  s.bgwriter_lru_maxpages   = static_cast<int>(o.integer("bgwriter_lru_maxpages", 100, 0, 1073741823));
  s.bgwriter_lru_multiplier = o.number("bgwriter_lru_multiplier", 2.0, 0, 10);
  return s;
}

Policies read_policies(Object o)
{
  Policies p;
  p.walwriter_wakeup        = choose(o, "walwriter_wakeup", "unflushed_page", kWakeups);
  p.walwriter_flush         = choose(o, "walwriter_flush", "delay_or_flush_after", kFlushes);
  p.hint_bits               = choose(o, "hint_bits", "flushed_or_page_lsn", kHintRules);
  p.in_progress_test        = choose(o, "in_progress_test", "snapshot", kInProgressTests);
  p.clog_group_update       = o.boolean("clog_group_update", true);
  p.procarray_group_clear   = o.boolean("procarray_group_clear", true);
  Object lw                 = o.object("lwlock");
  p.lwlock.spinlock_impl    = lw.choice("implementation", "atomic", {"atomic", "spinlock"}) == "spinlock";
  p.lwlock.list_hold        = lw.duration("wait_list_hold", "30ns", 0, 1e-4);
  p.lwlock.spin_delay_after = lw.duration("spin_delay_after", "50us", 1e-7, 1);
  Object latch              = o.object("latch");
  p.latch.signal_always     = latch.choice("signal", "if_sleeping", {"if_sleeping", "always"}) == "always";
  p.latch.wait_set_per_call = latch.choice("wait_set", "reused", {"reused", "per_call"}) == "per_call";
  return p;
}

// How many pages the rows of a small table occupy: at least as many as pgbench -i fills, at most
// one row per page.
std::uint32_t read_table_pages(Object& o, const std::string& table, std::uint64_t rows, int tuple_bytes, int fillfactor)
{
  const auto per_page      = static_cast<std::uint64_t>(loaded_rows_per_page(tuple_bytes, fillfactor));
  const auto loaded        = static_cast<std::int64_t>((rows + per_page - 1) / per_page);
  const auto most          = static_cast<std::int64_t>(rows);
  const std::int64_t pages = o.integer(table, loaded, 1, std::numeric_limits<std::uint32_t>::max());
  if (pages >= loaded && pages <= most) return static_cast<std::uint32_t>(pages);
  // A layout measured at one scale does not fit another: say how to get past it.
  o.fail(table, "expected an integer between " + std::to_string(loaded) + " and " + std::to_string(most) +
                    " (pages holding the table's " + std::to_string(rows) +
                    " rows at this scale: at least as many as pgbench -i fills, at most one row a page), got " +
                    std::to_string(pages) +
                    "; a layout measured at another scale does not carry over: set pgbench.heap_pages for this "
                    "scale, or leave it out (--set 'pgbench.heap_pages={}')");
  return static_cast<std::uint32_t>(loaded);
}

void read_heap_pages(Object o, PgbenchSpec& p)
{
  const auto scale = static_cast<std::uint64_t>(p.scale);
  p.branches_pages = read_table_pages(o, "pgbench_branches", scale, branches_tuple_bytes(), p.fillfactor);
  p.tellers_pages  = read_table_pages(o, "pgbench_tellers", 10 * scale, tellers_tuple_bytes(), p.fillfactor);
}

PgbenchSpec read_pgbench(Object o, RunSpec& run)
{
  PgbenchSpec p;
  p.script          = choose(o, "builtin", "tpcb-like", kScripts);
  p.protocol        = choose(o, "protocol", "simple", kProtocols);
  p.scale           = static_cast<int>(o.integer("scale", 1, 1, 100000));
  p.clients         = static_cast<int>(o.integer("clients", 1, 1, 100000));
  p.jobs            = static_cast<int>(o.integer("jobs", 1, 1, 100000));
  p.fillfactor      = static_cast<int>(o.integer("fillfactor", 100, 10, 100));
  p.unlogged_tables = o.boolean("unlogged_tables", false);
  p.reused_tables   = o.choice("tables", "initialized", {"initialized", "reused"}) == "reused";
  read_heap_pages(o.object("heap_pages"), p);
  // Below 2^31 with room for the window's own transactions: no wraparound, no freezing.
  p.prior_transactions = static_cast<std::uint64_t>(o.integer("prior_transactions", 0, 0, 1000000000));
  p.insert_rows        = static_cast<int>(o.integer("insert_rows", 1, 1, 100000));
  p.insert_row_size    = o.size("insert_row_size", "100B", 1, 1 * GB);
  run.duration         = o.duration("time", "10s", 1e-3, 1e6);
  run.progress         = o.duration("progress", "0", 0, 1e6);
  // pgbench.c: "Don't need more threads than there are clients" (nthreads = nclients), so a
  // sweep over clients can keep one -j.
  p.jobs = std::min(p.jobs, p.clients);
  return p;
}

// The default costs are a psql \watch of a SELECT on pg_stat_activity against PostgreSQL 15 on
// this project's 2-vCPU machine (README, "Sampling pg_stat_activity").
ActivitySampling read_activity_sampling(Object o)
{
  ActivitySampling a;
  a.interval = o.duration("interval", "20ms", 0, 3600); // 0: no sampler, as without the object
  a.query    = o.duration("query_cpu", "850us", 0, 1) * 1e9;
  a.client   = o.duration("client_cpu", "250us", 0, 1) * 1e9;
  return a;
}

} // namespace

Scenario read_scenario(const sim::config::Document& doc)
{
  sim::config::Reader reader(doc);
  Object root = reader.root();
  Scenario s;
  s.file                    = doc.name();
  s.hardware                = read_hardware(root.object("hardware"));
  s.costs                   = read_costs(root.object("costs"));
  s.settings                = read_settings(root.object("settings"));
  s.policies                = read_policies(root.object("policies"));
  Object run                = root.object("run");
  s.pgbench                 = read_pgbench(root.object("pgbench"), s.run);
  s.run.seed                = static_cast<std::uint64_t>(run.integer("seed", 1, 0, INT64_MAX));
  s.run.warmup              = run.duration("warmup", "1s", 0, 1e6);
  s.run.check_invariants    = run.boolean("check_invariants", true);
  s.run.checkpoint_at_start = run.boolean("checkpoint_at_start", true);
  s.run.workload            = run.choice("workload", "pgbench", {"pgbench", "seqscan"});
  if (run.has("activity_sampling")) s.run.activity_sampling = read_activity_sampling(run.object("activity_sampling"));
  if (s.run.workload == "seqscan") s.scan = read_scan(root);
  s.policies.lwlock.wake_cost     = s.hardware.os.futex_wake;
  s.policies.latch.signal         = s.hardware.os.signal;
  s.policies.latch.signal_handler = s.hardware.os.signal_handler;
  s.policies.latch.wait_set       = s.hardware.os.wait_set;
  s.policies.lwlock.op_cost = s.costs.lwlock_acquire * 1e-9 * s.hardware.cpu.reference_hz / s.hardware.cpu.clock_hz;
  if (s.pgbench.clients > s.settings.max_connections)
    reader.fail("/pgbench/clients", "expected at most max_connections (" + std::to_string(s.settings.max_connections) +
                                        ") clients, got " + std::to_string(s.pgbench.clients) +
                                        " (PostgreSQL refuses the rest: raise settings.max_connections)");
  reader.finish();
  s.resolved = reader.resolved();
  return s;
}

std::string to_string(Script script)
{
  return name_of(script, kScripts);
}
std::string to_string(WalWriterWakeup wakeup)
{
  return name_of(wakeup, kWakeups);
}
std::string to_string(WalWriterFlush flush)
{
  return name_of(flush, kFlushes);
}
std::string to_string(HintBitRule rule)
{
  return name_of(rule, kHintRules);
}

} // namespace pg
