/* What a run measured, in the terms PostgreSQL users read: pgbench's summary, pg_stat_wal,
 * LWLOCK_STATS lines, wait-event shares as pg_stat_activity sampling would show them,
 * pg_stat_slru, plus what the simulator itself cost. */
#pragma once

#include "models/activity_sampler.hpp"
#include "models/clog.hpp"
#include "models/heapam.hpp"
#include "models/relation.hpp"
#include "models/shared_buffers.hpp"
#include "models/xlog.hpp"
#include "sim/lwlock.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace pg {

struct LockLine {
  std::string name;
  sim::LWLockStats stats;
};

struct RunResult {
  std::string scenario_file;
  std::uint64_t seed = 0;
  nlohmann::json resolved;

  // pgbench
  std::string script, protocol;
  int scale = 0, clients = 0, jobs = 0;
  double duration            = 0;
  std::uint64_t transactions = 0;
  double latency_avg = 0, latency_stddev = 0, latency_p50 = 0, latency_p95 = 0, latency_p99 = 0; // seconds
  double tps = 0;

  // server
  WalStats wal;
  double insert_lock_acquire_seconds = 0;                  // summed over backends and insertion locks
  std::vector<LockLine> lwlocks;                           // named locks, the insertion locks summed as "WALInsertLock"
  std::vector<LockLine> insert_locks;                      // each insertion lock
  std::vector<std::pair<std::string, double>> wait_shares; // over active backends' time
  std::vector<std::pair<std::string, double>> wait_seconds; // all backends, all states
  double mean_active_backends = 0;                          // pg_stat_activity: backends in state 'active', on average
  ActivitySamples activity; // what a pg_stat_activity sampler read (run.activity_sampling)
  SlruStats slru;
  HintStats hints;
  // shared_buffers for the pgbench relations: tracked only once they outgrow it.
  bool buffers_tracked         = false;
  int nbuffers                 = 0;
  std::uint64_t relation_pages = 0; // heap pages and primary-key leaves at the end
  SharedBufferStats buffers;
  std::vector<std::pair<std::string, RelationStats>> relations;
  std::uint64_t commits = 0, walwriter_cycles = 0, checkpoints = 0;
  std::uint64_t wal_device_stalls       = 0; // stall episodes of the WAL device that held up a command
  double cpu_busy_cores                 = 0;
  double cpu_us_per_txn                 = 0;
  double cpu_switches_per_txn           = 0; // context switches, as /proc/stat's ctxt counts them
  double cpu_refill_us_per_txn          = 0; // CPU time refilling private caches after switches
  double cpu_translation_us_per_txn     = 0; // CPU time re-creating pushed-out address translations
  double cpu_address_space_us_per_txn   = 0; // CPU time switching to address spaces no longer kept ready
  double cpu_migrations_per_txn         = 0; // processes moving between hardware threads (perf's cpu-migrations)
  double cpu_wakeup_preemptions_per_txn = 0; // running processes preempted by a woken one
  double cpu_page_faults_per_txn        = 0; // backends' faults on shared memory (perf's minor-faults)
  double cpu_first_touches_per_txn      = 0; // first accesses to pages fault-around mapped
  double cpu_busy_interrupts_per_txn    = 0; // device completions that interrupted a busy CPU
  struct ProcessSwitches {
    std::string kind; // "backend", "pgbench", "walwriter", ...
    double voluntary = 0, involuntary = 0;
    double busy_us         = 0; // CPU time, microseconds
    double wakeup_delay_us = 0; // mean time from a wake-up to running, as perf sched timehist's sch_delay
  };
  std::vector<ProcessSwitches> cpu_switches_by_process; // per transaction, as /proc/PID/status and stat count them

  // the simulator on this host (not deterministic: wall-clock time and memory)
  double wall_seconds            = 0;
  long peak_rss_kb               = 0;
  std::uint64_t all_transactions = 0; // warm-up included, for the simulation speed
};

} // namespace pg
