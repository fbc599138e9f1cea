/* Running the sequential-scan workload (run.workload = "seqscan"), as run.hpp runs pgbench: the
 * machine, shared_buffers, the OS page cache, the fsync request queue and its absorbing process,
 * a table as `create table ... as select ...; checkpoint;` leaves it, an optional VACUUM, then
 * the series of `select sum(1)` scans, each timed as psql's \timing would time it.
 *
 * The results are per pass (VACUUM, then each scan), in pg_stat_io's terms for the scanning
 * backend (reads, hits, evictions, reuses, writes, fsyncs), plus the hint-bit counts of the
 * 2011 thread (writes of buffers dirtied only by hint bits, such writes skipped) and the fsync
 * queue's (requests, compactions).
 */
#pragma once

#include "models/buffer_manager.hpp"
#include "models/os_cache.hpp"
#include "models/scenario.hpp"
#include "models/seqscan.hpp"
#include "models/sync_queue.hpp"
#include "models/tuple_layout.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace pg {

struct ScanPass {
  std::string kind;   // "scan" or "vacuum"
  int run        = 0; // 1-based scan number; 0 for VACUUM
  double seconds = 0; // from the query's arrival to its last tuple
  IoCounters io;
  HeapPassCounts heap;
  std::uint64_t compactions    = 0; // CompactCheckpointerRequestQueue calls that made room
  std::uint64_t compacted      = 0; // requests they removed
  std::uint64_t absorbed       = 0; // requests the absorbing process took during the pass
  std::uint64_t unhinted_after = 0; // pages whose stored copy still lacks hint bits afterwards
};

struct ScanRunResult {
  std::string scenario_file;
  std::uint64_t seed = 0;
  nlohmann::json resolved;

  std::string table;
  std::uint64_t rows = 0;
  TupleLayout layout;
  int NBuffers          = 0;
  int ring_buffers      = 0; // the scan's ring (0: no strategy, the table is small)
  int queue_size        = 0;
  double ram            = 0;
  double think_time     = 0; // seconds between scans
  double os_cache_bytes = 0;
  std::string hint_bit_io;
  double hint_bit_io_limit = 0;
  bool compaction          = true;
  std::string queue_wakeup;

  std::vector<ScanPass> passes; // VACUUM first when there is one, then the scans in order
  OsCacheStats os;
  SyncQueueStats sync;

  double wall_seconds = 0;
  long peak_rss_kb    = 0;

  /// The scans only, without the VACUUM pass.
  std::vector<ScanPass> scans() const;
};

/// Simulates the scenario (run.workload must be "seqscan"). One run per process.
ScanRunResult run_scan_scenario(const Scenario& scenario, const std::vector<std::string>& simgrid_args);

void print_scan_summary(std::ostream& out, const ScanRunResult& r);
/// Everything measured; wall time and memory only with with_host (they differ between runs).
nlohmann::ordered_json to_json(const ScanRunResult& r, bool with_host);

} // namespace pg
