/* Wiring a run together: the machine, the server, pgbench, the measurement window. */
#include "models/run.hpp"

#include "models/activity_sampler.hpp"

#include "models/pgbench.hpp"
#include "models/server.hpp"
#include "models/version.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"

#include <memory>

namespace pg {

namespace {

constexpr std::uint64_t kClientStream = 0x434c4e54;

/// pgbench's clients and threads, on the server's CPU or on a client machine of their own.
struct Pgbench {
  Pgbench(const Scenario& s, sim::Cpu& server_cpu, Server& server)
  {
    if (s.hardware.separate_client) {
      sim::CpuParams p   = s.hardware.cpu;
      p.sockets          = 1;
      p.cores_per_socket = s.hardware.client_cores;
      p.threads_per_core = 1;
      client_cpu         = std::make_unique<sim::Cpu>(p);
    }
    sim::Cpu& cpu = client_cpu ? *client_cpu : server_cpu;
    for (int j = 0; j < s.pgbench.jobs; j++) {
      threads.push_back(std::make_unique<PgbenchThread>(j, cpu, s, server.events, stats));
      threads.back()->proc().set_allowed_cpus(s.hardware.os.pgbench_cpus);
      // pgbench's threads are one process: switching between them keeps the page tables.
      if (j > 0) threads.back()->proc().share_address_space(threads.front()->proc());
    }
    // pgbench gives each thread a contiguous share of the clients.
    for (int i = 0; i < s.pgbench.clients; i++) {
      auto c    = std::make_unique<PgbenchClient>();
      c->id     = i;
      c->conn   = &server.connect();
      c->thread = threads[static_cast<std::size_t>(i * s.pgbench.jobs / s.pgbench.clients)].get();
      c->rng    = sim::Rng(s.run.seed, kClientStream + static_cast<std::uint64_t>(i));
      c->thread->add_client(c.get());
      clients.push_back(std::move(c));
    }
  }
  std::unique_ptr<sim::Cpu> client_cpu;
  PgbenchStats stats;
  std::vector<std::unique_ptr<PgbenchThread>> threads;
  std::vector<std::unique_ptr<PgbenchClient>> clients;
};

void add_wait_times(const sim::Proc& p, sim::WaitTimes& sum)
{
  sum.merge(p.wait_times());
}

std::vector<std::pair<std::string, double>> named(const sim::WaitEventNames& names, const std::vector<double>& v,
                                                  double total)
{
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < v.size(); i++)
    if (v[i] > 0) out.emplace_back(names.name(static_cast<sim::WaitEventId>(i)), total > 0 ? v[i] / total : v[i]);
  return out;
}

void collect(const Scenario& s, Server& server, Pgbench& bench, sim::Cpu& cpu, const sim::WaitEventNames& names,
             double window_start, RunResult& r)
{
  const double window = sim::Simulation::now() - window_start;
  r.duration          = window;
  r.transactions      = bench.stats.transactions;
  r.tps               = static_cast<double>(r.transactions) / window;
  r.latency_avg       = bench.stats.latency.mean();
  r.latency_stddev    = bench.stats.latency.stddev();
  r.latency_p50       = bench.stats.latency_hist.percentile(50);
  r.latency_p95       = bench.stats.latency_hist.percentile(95);
  r.latency_p99       = bench.stats.latency_hist.percentile(99);

  r.wal = server.xlog.stats();
  sim::LWLockStats inserts;
  int i = 0;
  for (const auto& l : server.xlog.insert_locks()) {
    r.insert_locks.push_back(LockLine{"WALInsertLock " + std::to_string(i++), l.stats()});
    inserts.add(l.stats());
  }
  r.insert_lock_acquire_seconds = inserts.acquire_seconds;
  r.lwlocks                     = {{"WALInsertLock", inserts},
                                   {"insertpos_lck", server.xlog.insertpos_stats()},
                                   {"WALWriteLock", server.xlog.wal_write_lock().stats()},
                                   {"WALBufMappingLock", server.xlog.wal_buf_mapping_lock().stats()},
                                   {"CLogControlLock", server.clog.lock().stats()},
                                   {"ProcArrayLock", server.procarray.lock().stats()},
                                   {"XidGenLock", server.procarray.xidgen_lock().stats()},
                                   {"info_lck", server.xlog.info_lck_stats()}};
  for (const Relation* rel : {&server.tables.branches, &server.tables.tellers, &server.tables.accounts,
                              &server.tables.history, &server.tables.bulk}) {
    const auto st = rel->content_lock_stats();
    if (st.shacq + st.exacq > 0) r.lwlocks.push_back(LockLine{"BufferContent " + rel->name(), st});
  }

  sim::WaitTimes times;
  for (auto& b : server.backends) {
    b->proc.settle_wait_times();
    add_wait_times(b->proc, times);
  }
  double active = 0;
  for (double t : times.active) active += t;
  r.wait_shares          = named(names, times.active, active);
  r.mean_active_backends = active / window;
  r.wait_seconds         = named(names, times.all, 0);

  r.slru            = server.clog.stats();
  r.hints           = server.heapam.hint_stats();
  r.buffers_tracked = server.shared_buffers.active();
  r.nbuffers        = server.shared_buffers.NBuffers();
  r.relation_pages  = server.shared_buffers.total_pages();
  r.buffers         = server.shared_buffers.stats();
  for (Relation* rel : {&server.tables.branches, &server.tables.tellers, &server.tables.accounts,
                        &server.tables.history, &server.tables.bulk})
    if (rel->stats().hot_updates + rel->stats().cold_updates + rel->stats().inserts + rel->stats().versions_visited > 0)
      r.relations.emplace_back(rel->name(), rel->stats());
  r.commits          = server.xact.commits();
  r.walwriter_cycles = server.walwriter.cycles();
  r.checkpoints      = server.checkpointer.checkpoints();
  r.cpu_busy_cores   = cpu.busy_seconds(sim::Simulation::now()) / window;
  r.cpu_us_per_txn   = r.transactions > 0 ? cpu.busy_seconds(sim::Simulation::now()) * 1e6 / r.transactions : 0;
  r.cpu_switches_per_txn =
      r.transactions > 0 ? static_cast<double>(cpu.switches()) / static_cast<double>(r.transactions) : 0;
  r.cpu_migrations_per_txn =
      r.transactions > 0 ? static_cast<double>(cpu.migrations()) / static_cast<double>(r.transactions) : 0;
  r.cpu_wakeup_preemptions_per_txn =
      r.transactions > 0 ? static_cast<double>(cpu.wakeup_preemptions()) / static_cast<double>(r.transactions) : 0;
  r.cpu_refill_us_per_txn = r.transactions > 0 ? cpu.refill_seconds() * 1e6 / static_cast<double>(r.transactions) : 0;
  r.cpu_translation_us_per_txn =
      r.transactions > 0 ? cpu.translation_seconds() * 1e6 / static_cast<double>(r.transactions) : 0;
  r.cpu_address_space_us_per_txn =
      r.transactions > 0 ? cpu.address_space_seconds() * 1e6 / static_cast<double>(r.transactions) : 0;
  const auto per_txn = [&](std::uint64_t n) {
    return r.transactions > 0 ? static_cast<double>(n) / static_cast<double>(r.transactions) : 0;
  };
  std::uint64_t faults = 0, first_touches = 0;
  for (auto& b : server.backends)
    if (b->page_table) {
      faults += b->page_table->stats().read_faults + b->page_table->stats().write_faults;
      first_touches += b->page_table->stats().first_touches;
    }
  r.cpu_page_faults_per_txn     = per_txn(faults);
  r.cpu_first_touches_per_txn   = per_txn(first_touches);
  r.cpu_busy_interrupts_per_txn = per_txn(cpu.busy_interrupts());
  const auto busy               = cpu.busy_seconds_by_kind(sim::Simulation::now());
  for (const auto& [kind, n] : cpu.switches_by_kind()) {
    const double us       = r.transactions > 0 ? busy.at(kind) * 1e6 / static_cast<double>(r.transactions) : 0;
    const double delay_us = n.wakeups > 0 ? n.wakeup_delay * 1e6 / static_cast<double>(n.wakeups) : 0;
    r.cpu_switches_by_process.push_back({kind, per_txn(n.voluntary), per_txn(n.involuntary), us, delay_us});
  }
  (void)s;
}

} // namespace

RunResult run_scenario(const Scenario& s, const RunOptions& options)
{
  sim::Simulation simulation(options.simgrid_args);
  sim::WaitEventNames names;
  sim::Cpu cpu(s.hardware.cpu);
  sim::Nvme wal_device(s.hardware.wal_device, s.run.seed, "wal_device");
  Server server(s, cpu, wal_device, names);
  Pgbench bench(s, cpu, server);

  simulation.spawn("walwriter", [&server]() { server.walwriter.main(); });
  simulation.spawn("checkpointer", [&server]() { server.checkpointer.main(); });
  if (server.kblockd) simulation.spawn("kblockd", [&server]() { server.kblockd->main(); });
  if (server.bgwriter) simulation.spawn("bgwriter", [&server]() { server.bgwriter->main(); });
  for (auto& conn : server.connections) {
    Connection* c = conn.get();
    simulation.spawn(c->backend().proc.name(), [c]() { c->PostgresMain(); });
  }
  for (auto& t : bench.threads) {
    PgbenchThread* th = t.get();
    simulation.spawn(th->proc().name(), [th]() { th->main(); });
  }
  std::unique_ptr<ActivitySampler> sampler;
  if (s.run.activity_sampling.interval > 0) {
    sampler = std::make_unique<ActivitySampler>(s.run.activity_sampling, cpu, server.connections,
                                                names.intern("Timeout:PgSleep"), s.pgbench.clients + 4);
    simulation.spawn("psql sampler", [&sampler]() { sampler->main(); });
  }

  RunResult r;
  r.scenario_file = s.file;
  r.seed          = s.run.seed;
  r.resolved      = s.resolved;
  r.script        = to_string(s.pgbench.script);
  r.protocol      = s.pgbench.protocol == Protocol::Simple     ? "simple"
                    : s.pgbench.protocol == Protocol::Extended ? "extended"
                                                               : "prepared";
  r.scale         = s.pgbench.scale;
  r.clients       = s.pgbench.clients;
  r.jobs          = s.pgbench.jobs;

  double window_start           = 0;
  std::uint64_t stalls_at_start = 0;
  sim::Window w;
  w.warmup   = s.run.warmup;
  w.duration = s.run.duration;
  w.progress = s.run.progress;
  simulation.run(
      w,
      [&]() {
        window_start    = sim::Simulation::now();
        stalls_at_start = wal_device.stats().stalls;
        server.reset_stats();
        bench.stats.reset();
        cpu.reset_stats(window_start);
        for (auto& b : server.backends) b->proc.reset_wait_times();
        if (sampler) sampler->reset_stats();
      },
      [&](double elapsed) {
        if (!options.on_progress) return;
        Progress p;
        p.elapsed        = elapsed;
        p.tps            = static_cast<double>(bench.stats.interval.count()) / s.run.progress;
        p.latency_avg    = bench.stats.interval.mean();
        p.latency_stddev = bench.stats.interval.stddev();
        bench.stats.interval.reset();
        options.on_progress(p);
      },
      [&]() {
        if (s.run.check_invariants) server.xlog.check_invariants();
        collect(s, server, bench, cpu, names, window_start, r);
        r.wal_device_stalls = wal_device.stats().stalls - stalls_at_start;
        if (sampler) r.activity = sampler->results(names);
      });
  r.wall_seconds     = simulation.wall_seconds();
  r.all_transactions = bench.stats.all_transactions;
  r.peak_rss_kb      = sim::peak_rss_kb();
  return r;
}

} // namespace pg
