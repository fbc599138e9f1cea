/* The typed scenario of the sequential-scan workload (run.workload = "seqscan"): the table and
 * how it was loaded, the series of scans, the buffer-manager settings and policies, the OS page
 * cache, and the CPU costs of the scan's code paths ("scan_costs", nanoseconds at the reference
 * clock). read_scan() reads these keys from a scenario document; scenario.cpp calls it.
 *
 * Keys (all read only when run.workload is "seqscan"):
 *   scan.table: name, rows, fillfactor, columns [{name, type: int4|int8|float8|text,
 *               value: "random()::text"|"fixed", repeat, length}]
 *   scan.scans, scan.think_time, scan.vacuum_first
 *   settings.bgwriter_delay, settings.extra_float_digits, settings.fsync_request_queue_size
 *   policies.hint_bit_io (unlimited|limited), policies.hint_bit_io_limit,
 *   policies.fsync_queue_compaction, policies.fsync_queue_wakeup (bgwriter_delay|half_full)
 *   hardware.ram, hardware.os.pread, hardware.os.pread_per_kB
 *   scan_costs.* (see ScanCosts)
 */
#pragma once

#include "sim/config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pg {

enum class HintBitIo { Unlimited, Limited };
/// When the absorbing process empties the fsync request queue.
enum class SyncQueueWakeup {
  BgWriterDelay, // 9.1: the background writer absorbs on each wake-up, every bgwriter_delay
  HalfFull,      // 9.2 and later: the checkpointer, also nudged when a backend finds the queue half full
};

struct ColumnSpec {
  std::string name;
  std::string type;  // int4, int8, float8 or text
  std::string value; // text: "random()::text" or "fixed"
  int repeat = 1;    // text: values concatenated with ||
  int length = 0;    // text "fixed": characters
};

struct TableSpec {
  std::string name   = "s";
  std::uint64_t rows = 0;
  int fillfactor     = 100;
  std::vector<ColumnSpec> columns;
};

/// CPU costs of the scan's code paths, in nanoseconds at the reference clock.
struct ScanCosts {
  double seqscan_tuple;        // executor work per tuple: SeqNext, ExecScan, the aggregate's transition
  double heapgetpage;          // per page: locking it, walking its line pointers
  double visibility_unhinted;  // HeapTupleSatisfiesMVCC's path when xmin is not hinted, besides
                               // the CLOG and SetHintBits
  double buffer_lookup;        // BufTableLookup under the buffer mapping partition lock
  double buffer_alloc;         // StrategyGetBuffer, the mapping table update, header bookkeeping
  double flush_buffer;         // FlushBuffer and mdwrite besides the write() system call
  double forward_sync_request; // ForwardSyncRequest under CheckpointerCommLock
  double compact_per_request;  // CompactCheckpointerRequestQueue, per queue entry
  double absorb_per_request;   // AbsorbSyncRequests / RememberSyncRequest, per entry
  double bgwriter_loop;        // one cycle of the absorbing process besides absorbing
  double vacuum_page;          // lazy_scan_heap per page (cleanup lock, visibility map)
  double vacuum_tuple;         // lazy_scan_heap per tuple (HeapTupleSatisfiesVacuum)
};

struct ScanSpec {
  TableSpec table;
  int scans                          = 1;
  double think_time                  = 1; // seconds between one scan's end and the next one's start
  bool vacuum_first                  = false;
  int extra_float_digits             = 1;   // PostgreSQL 12+ default; 0 before (15 significant digits)
  double bgwriter_delay              = 0.2; // seconds
  int fsync_request_queue_size       = -1;  // -1: NBuffers, as CheckpointerShmemSize sizes it
  HintBitIo hint_bit_io              = HintBitIo::Unlimited;
  double hint_bit_io_limit           = 0;
  bool fsync_queue_compaction        = true;
  SyncQueueWakeup fsync_queue_wakeup = SyncQueueWakeup::HalfFull;
  double ram                         = 0; // bytes of memory of the machine
  double pread                       = 0; // seconds per read() of a cached 8kB page, besides the copy
  double pread_per_kb                = 0; // seconds to copy one kB out of the page cache
  ScanCosts costs{};
};

/// Reads the seqscan keys of a scenario (root is the document's root object).
ScanSpec read_scan(sim::config::Object root);

std::string to_string(HintBitIo policy);
std::string to_string(SyncQueueWakeup wakeup);

} // namespace pg
