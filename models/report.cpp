/* The pgbench-style summary and the JSON result document. */
#include "models/report.hpp"

#include "models/version.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace pg {

namespace {

std::string fmt(const char* format, double v)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string transaction_type(const std::string& script)
{
  if (script == "tpcb-like") return "<builtin: TPC-B (sort of)>";
  if (script == "simple-update") return "<builtin: simple update>";
  if (script == "select-only") return "<builtin: select only>";
  return script;
}

// Only when the tables outgrew shared_buffers: otherwise every page stays resident and free.
void print_buffers(std::ostream& out, const RunResult& r)
{
  if (!r.buffers_tracked) return;
  const SharedBufferStats& b = r.buffers;
  const double txn           = r.transactions > 0 ? static_cast<double>(r.transactions) : 1.0;
  const double lookups       = static_cast<double>(b.hits + b.reads + b.extends);
  out << "shared_buffers: " << r.nbuffers << " buffers for " << r.relation_pages
      << " pages (heap and primary-key leaves): hit ratio " << fmt("%.2f", lookups > 0 ? 100.0 * b.hits / lookups : 0)
      << "%, per transaction " << fmt("%.2f", b.reads / txn) << " reads, " << fmt("%.2f", b.writes / txn)
      << " backend writes (" << fmt("%.3f", b.wal_flushes / txn) << " needing a WAL flush), "
      << fmt("%.2f", b.bgwriter_writes / txn) << " bgwriter writes, " << fmt("%.1f", b.clock_ticks / txn)
      << " clock-sweep ticks\n";
}

// pg_stat_slru's Xact row, then where the transaction status lookups came from and what became of
// the hint bits they were for: the figures behind every hint-bit experiment.
void print_clog(std::ostream& out, const RunResult& r)
{
  const SlruStats& c  = r.slru;
  const double txn    = r.transactions > 0 ? static_cast<double>(r.transactions) : 1.0;
  const auto by_asker = [&](XidAsker a) { return c.lookups_by[static_cast<std::size_t>(a)] / txn; };
  out << "pg_stat_slru (Xact): blks_zeroed=" << c.blks_zeroed << " blks_hit=" << c.blks_hit
      << " blks_read=" << c.blks_read << " blks_written=" << c.blks_written << "\n"
      << "transaction status per transaction: " << fmt("%.1f", c.fetches / txn) << " fetches, "
      << fmt("%.1f", c.cache_hits / txn) << " from the fetch cache; pg_xact lookups from HeapTupleSatisfiesMVCC "
      << fmt("%.1f", by_asker(XidAsker::SatisfiesMVCC)) << ", HeapTupleSatisfiesUpdate "
      << fmt("%.1f", by_asker(XidAsker::SatisfiesUpdate)) << ", HeapTupleSatisfiesVacuum "
      << fmt("%.1f", by_asker(XidAsker::SatisfiesVacuum)) << "\n"
      << "hint bits per transaction: " << fmt("%.1f", r.hints.set / txn) << " set, "
      << fmt("%.1f", r.hints.refused / txn) << " refused (commit record not yet flushed), "
      << fmt("%.2f", r.hints.dirtied_page / txn) << " pages dirtied by a hint\n";
  if (c.group_updates > 0)
    out << "CLOG group status update: " << c.group_updates << " leaders set " << c.group_members
        << " statuses for other backends\n";
}

// How often the WAL writer ran and was woken, and what a cycle cost it: what the wake-up policies
// (XLogSetAsyncXactLSN's rules) trade against one another.
void print_walwriter(std::ostream& out, const RunResult& r, std::uint64_t latch_wakeups)
{
  const double txn    = r.transactions > 0 ? static_cast<double>(r.transactions) : 1.0;
  const double cycles = static_cast<double>(r.walwriter_cycles);
  out << "WAL writer: " << r.walwriter_cycles << " cycles (" << fmt("%.3f", cycles / txn) << " per transaction), "
      << latch_wakeups << " woken by SetLatch";
  for (const auto& p : r.cpu_switches_by_process)
    if (p.kind == "walwriter" && cycles > 0)
      out << ", " << fmt("%.1f", p.busy_us * txn / cycles) << " us of CPU per cycle";
  out << "\n";
}

void print_lock(std::ostream& out, const char* indent, const LockLine& l)
{
  const auto& s = l.stats;
  char line[200];
  std::snprintf(line, sizeof line, "%s%-*s %12llu %12llu %10llu %9llu %12.1f %12.1f\n", indent,
                static_cast<int>(36 - std::strlen(indent)), l.name.c_str(), static_cast<unsigned long long>(s.shacq),
                static_cast<unsigned long long>(s.exacq), static_cast<unsigned long long>(s.blk),
                static_cast<unsigned long long>(s.spindelay), s.acquire_seconds * 1e3, s.wait_seconds * 1e3);
  out << line;
}

void print_locks(std::ostream& out, const RunResult& r)
{
  out << "\nLWLOCK_STATS over the measured window (acquire and wait times summed over processes):\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-34s %12s %12s %10s %9s %12s %12s\n", "lock", "shacq", "exacq", "blk",
                "spindelay", "acquire ms", "wait ms");
  out << line;
  for (const auto& l : r.lwlocks) {
    print_lock(out, "  ", l);
    // The insertion locks' sum first, then each lock, as LWLOCK_STATS prints one line per lock:
    // how evenly backends spread over the locks is what a NUM_XLOGINSERT_LOCKS sweep looks at.
    if (l.name == "WALInsertLock" && r.insert_locks.size() > 1)
      for (const auto& each : r.insert_locks) print_lock(out, "    ", each);
  }
}

// What the sampler read: the figures to compare with a real sampler's, which is biased the same way.
void print_activity_samples(std::ostream& out, const ActivitySamples& a)
{
  if (!a.sampled) return;
  out << "\npg_stat_activity as a sampler read it (" << a.samples << " reads, one every "
      << fmt("%.1f", a.mean_interval * 1e3) << " ms; " << fmt("%.2f", a.mean_active_backends)
      << " active backends on average):\n";
  char line[128];
  for (const auto& [name, share] : a.state_shares) {
    std::snprintf(line, sizeof line, "  state %-22s %6.2f%%\n", name.c_str(), share * 100);
    out << line;
  }
  for (const auto& [name, share] : a.active_wait_shares) {
    std::snprintf(line, sizeof line, "  active, %-20s %6.2f%%\n", name.c_str(), share * 100);
    out << line;
  }
}

} // namespace

void print_summary(std::ostream& out, const RunResult& r)
{
  out << "transaction type: " << transaction_type(r.script) << "\n"
      << "scaling factor: " << r.scale << "\n"
      << "query mode: " << r.protocol << "\n"
      << "number of clients: " << r.clients << "\n"
      << "number of threads: " << r.jobs << "\n"
      << "duration: " << fmt("%g", r.duration) << " s\n"
      << "number of transactions actually processed: " << r.transactions << "\n"
      << "latency average = " << fmt("%.3f", r.latency_avg * 1e3) << " ms\n"
      << "latency stddev = " << fmt("%.3f", r.latency_stddev * 1e3) << " ms\n"
      << "tps = " << fmt("%f", r.tps) << " (without initial connection time)\n";

  const WalStats& w = r.wal;
  out << "\npg_stat_wal: wal_records=" << w.wal_records << " wal_fpi=" << w.wal_fpi
      << " wal_bytes=" << fmt("%.0f", w.wal_bytes) << " wal_buffers_full=" << w.wal_buffers_full
      << " wal_write=" << w.wal_write << " wal_sync=" << w.wal_sync
      << " wal_write_time=" << fmt("%.1f", w.wal_write_time * 1e3)
      << " wal_sync_time=" << fmt("%.1f", w.wal_sync_time * 1e3) << "\n";
  out << "WAL insertion lock acquire time = " << fmt("%.1f", r.insert_lock_acquire_seconds * 1e3)
      << " ms, WaitXLogInsertionsToFinish time = " << fmt("%.1f", w.wait_for_insertions_time * 1e3) << " ms ("
      << w.wait_for_insertions_calls << " calls)\n";
  if (w.wal_sync > 0)
    out << "WAL sync: fdatasync() took p50 " << fmt("%.1f", w.wal_sync_hist.percentile(50) * 1e6) << " us, p90 "
        << fmt("%.1f", w.wal_sync_hist.percentile(90) * 1e6) << " us, p99 "
        << fmt("%.1f", w.wal_sync_hist.percentile(99) * 1e6) << " us\n";
  if (r.wal_device_stalls > 0) out << "WAL device: " << r.wal_device_stalls << " stall episodes held up commands\n";
  print_walwriter(out, r, w.walwriter_wakeups);
  print_clog(out, r);
  print_buffers(out, r);
  print_locks(out, r);

  out << "\nwait events (share of active backends' time, as pg_stat_activity sampling shows it):\n";
  char line[128];
  for (const auto& [name, share] : r.wait_shares) {
    std::snprintf(line, sizeof line, "  %-28s %6.2f%%\n", name.c_str(), share * 100);
    out << line;
  }
  print_activity_samples(out, r.activity);
}

nlohmann::ordered_json to_json(const RunResult& r, bool with_host)
{
  using nlohmann::ordered_json;
  ordered_json j;
  j["simulator"]    = {{"walsim", walsim_version()}, {"simgrid", simgrid_version()}, {"seed", r.seed}};
  j["scenario"]     = {{"file", r.scenario_file}, {"resolved", r.resolved}};
  j["pgbench"]      = {{"script", r.script},
                       {"scale", r.scale},
                       {"protocol", r.protocol},
                       {"clients", r.clients},
                       {"threads", r.jobs},
                       {"duration_s", r.duration},
                       {"transactions", r.transactions},
                       {"tps", r.tps},
                       {"latency_ms",
                        {{"average", r.latency_avg * 1e3},
                         {"stddev", r.latency_stddev * 1e3},
                         {"p50", r.latency_p50 * 1e3},
                         {"p95", r.latency_p95 * 1e3},
                         {"p99", r.latency_p99 * 1e3}}}};
  const WalStats& w = r.wal;
  j["pg_stat_wal"]  = {{"wal_records", w.wal_records},
                       {"wal_fpi", w.wal_fpi},
                       {"wal_bytes", w.wal_bytes},
                       {"wal_buffers_full", w.wal_buffers_full},
                       {"wal_write", w.wal_write},
                       {"wal_sync", w.wal_sync},
                       {"wal_write_time_ms", w.wal_write_time * 1e3},
                       {"wal_sync_time_ms", w.wal_sync_time * 1e3}};
  j["wal_sync_us"]  = {{"p50", w.wal_sync_hist.percentile(50) * 1e6},
                       {"p90", w.wal_sync_hist.percentile(90) * 1e6},
                       {"p99", w.wal_sync_hist.percentile(99) * 1e6}};
  j["wal_insert_lock_acquire_time_ms"]       = r.insert_lock_acquire_seconds * 1e3;
  j["wal_wait_for_insert_to_finish_time_ms"] = w.wait_for_insertions_time * 1e3;
  j["wal_wait_for_insert_to_finish_calls"]   = w.wait_for_insertions_calls;
  j["walwriter"]                             = {{"cycles", r.walwriter_cycles}, {"latch_wakeups", w.walwriter_wakeups}};
  j["checkpoints"]                           = r.checkpoints;
  j["wal_device"]                            = {{"stalls", r.wal_device_stalls}};
  auto lock_json                             = [](const LockLine& l) {
    return ordered_json{{"name", l.name},
                        {"shacq", l.stats.shacq},
                        {"exacq", l.stats.exacq},
                        {"blk", l.stats.blk},
                        {"spindelay", l.stats.spindelay},
                        {"acquire_ms", l.stats.acquire_seconds * 1e3},
                        {"wait_ms", l.stats.wait_seconds * 1e3}};
  };
  for (const auto& l : r.lwlocks) j["lwlock_stats"].push_back(lock_json(l));
  for (const auto& l : r.insert_locks) j["wal_insert_locks"].push_back(lock_json(l));
  j["mean_active_backends"] = r.mean_active_backends;
  for (const auto& [name, share] : r.wait_shares) j["wait_event_shares_active"][name] = share;
  for (const auto& [name, seconds] : r.wait_seconds) j["wait_event_seconds"][name] = seconds;
  if (r.activity.sampled) {
    ordered_json a = {{"samples", r.activity.samples},
                      {"mean_interval_ms", r.activity.mean_interval * 1e3},
                      {"mean_active_backends", r.activity.mean_active_backends},
                      {"state_shares", ordered_json::object()},
                      {"active_wait_event_shares", ordered_json::object()}};
    for (const auto& [name, share] : r.activity.state_shares) a["state_shares"][name] = share;
    for (const auto& [name, share] : r.activity.active_wait_shares) a["active_wait_event_shares"][name] = share;
    j["pg_stat_activity_samples"] = a;
  }
  j["pg_stat_slru_xact"] = {{"blks_zeroed", r.slru.blks_zeroed},
                            {"blks_hit", r.slru.blks_hit},
                            {"blks_read", r.slru.blks_read},
                            {"blks_written", r.slru.blks_written},
                            {"group_updates", r.slru.group_updates},
                            {"group_members", r.slru.group_members},
                            {"transaction_status_fetches", r.slru.fetches},
                            {"fetch_cache_hits", r.slru.cache_hits}};
  const auto lookups     = [&r](XidAsker a) { return r.slru.lookups_by[static_cast<std::size_t>(a)]; };
  j["pg_stat_slru_xact"]["lookups_by_asker"] = {{"HeapTupleSatisfiesMVCC", lookups(XidAsker::SatisfiesMVCC)},
                                                {"HeapTupleSatisfiesUpdate", lookups(XidAsker::SatisfiesUpdate)},
                                                {"HeapTupleSatisfiesVacuum", lookups(XidAsker::SatisfiesVacuum)},
                                                {"SetHintBits", lookups(XidAsker::SetHintBits)}};
  j["hint_bits"]                             = {
                                  {"set", r.hints.set}, {"refused_unflushed", r.hints.refused}, {"pages_dirtied", r.hints.dirtied_page}};

  const SharedBufferStats& b = r.buffers;
  j["shared_buffers"]        = {{"buffers", r.nbuffers},
                                {"relation_pages", r.relation_pages},
                                {"tracked", r.buffers_tracked},
                                {"hits", b.hits},
                                {"reads", b.reads},
                                {"extends", b.extends},
                                {"evictions", b.evictions},
                                {"writes", b.writes},
                                {"writes_wal_flush", b.wal_flushes},
                                {"writes_bgwriter", b.bgwriter_writes},
                                {"clock_ticks", b.clock_ticks}};
  for (const auto& [name, s] : r.relations)
    j["relations"][name] = {{"hot_updates", s.hot_updates},
                            {"cold_updates", s.cold_updates},
                            {"inserts", s.inserts},
                            {"prunes", s.prunes},
                            {"pruned_tuples", s.pruned_tuples},
                            {"prune_skipped_no_cleanup_lock", s.prune_skipped},
                            {"tuple_locks", s.tuple_locks},
                            {"versions_visited", s.versions_visited},
                            {"extensions", s.extensions}};
  ordered_json by_process = ordered_json::object();
  ordered_json busy_by    = ordered_json::object();
  ordered_json delay_by   = ordered_json::object();
  for (const auto& p : r.cpu_switches_by_process) {
    by_process[p.kind] = {{"voluntary", p.voluntary}, {"involuntary", p.involuntary}};
    busy_by[p.kind]    = p.busy_us;
    delay_by[p.kind]   = p.wakeup_delay_us;
  }
  j["cpu"] = {{"busy_cores_avg", r.cpu_busy_cores},
              {"busy_cpu_us_per_txn", r.cpu_us_per_txn},
              {"context_switches_per_txn", r.cpu_switches_per_txn},
              {"switches_per_txn_by_process", by_process},
              {"busy_us_per_txn_by_process", busy_by},
              {"wakeup_delay_us_by_process", delay_by},
              {"migrations_per_txn", r.cpu_migrations_per_txn},
              {"wakeup_preemptions_per_txn", r.cpu_wakeup_preemptions_per_txn},
              {"cache_refill_us_per_txn", r.cpu_refill_us_per_txn},
              {"translation_us_per_txn", r.cpu_translation_us_per_txn},
              {"address_space_us_per_txn", r.cpu_address_space_us_per_txn},
              {"page_faults_per_txn", r.cpu_page_faults_per_txn},
              {"page_first_touches_per_txn", r.cpu_first_touches_per_txn},
              {"busy_io_interrupts_per_txn", r.cpu_busy_interrupts_per_txn}};
  if (with_host)
    j["host_measurements"] = {{"wall_seconds", r.wall_seconds},
                              {"peak_rss_kb", r.peak_rss_kb},
                              {"simulated_transactions_per_wall_second",
                               r.wall_seconds > 0 ? static_cast<double>(r.all_transactions) / r.wall_seconds : 0.0}};
  return j;
}

} // namespace pg
