/* A scenario, validated and typed: the machine, the CPU cost of PostgreSQL's code paths, the
 * server's settings (GUC names), the policies under study, the pgbench run and the run control.
 *
 * Scenario keys and their defaults are documented in README.md ("Scenario reference"); the
 * defaults of PostgreSQL settings are PostgreSQL 15's.
 */
#pragma once

#include "models/scan_scenario.hpp"
#include "sim/config.hpp"
#include "sim/cpu.hpp"
#include "sim/latch.hpp"
#include "sim/lwlock.hpp"
#include "sim/nvme.hpp"
#include "sim/page_table.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace pg {

/// Costs of the operating system that PostgreSQL pays through system calls, in seconds.
struct OsCosts {
  double futex_wake     = 1.5e-6; // PGSemaphoreUnlock of a sleeping process
  double signal         = 3e-6;   // kill() to set another process's latch
  double signal_handler = 1e-6;   // receiving that signal, before PostgreSQL 14 (handler, sigreturn)
  double wait_set       = 2e-6;   // WaitLatch's per-call epoll set in 9.6-13 (create, add, close)
  double pwrite         = 2e-6;   // one write() system call into the page cache
  double pwrite_per_kb  = 0.1e-6; // copying each kB into the page cache
  double pread          = 2e-6;   // one read() system call of a page the page cache holds
  double pread_per_kb   = 0.1e-6; // copying each kB out of the page cache
  double fdatasync_cpu  = 10e-6;  // CPU spent in the kernel by fdatasync(), besides the device
  /// kblockd's CPU time to dispatch fdatasync()'s cache flush (a kernel thread must run before the
  /// device sees it); negative: the caller dispatches it, with no kernel thread in between.
  double kblockd_dispatch = -1;
  double socket_send      = 2e-6; // send() of a protocol message on loopback
  double socket_recv      = 2e-6; // recv() of a protocol message
  /// The kernel's timer slack for a timed sleep of a normal process (timer_slack_ns, 50 us by
  /// default): a select() timeout may expire that much late, or a thousandth of the timeout if more.
  double timer_slack = 50e-6;
  /// The hardware threads PostgreSQL's processes and pgbench's threads may run on, as taskset
  /// pins them (empty: all).
  std::vector<int> server_cpus;
  std::vector<int> pgbench_cpus;
  /// A new backend's faults on shared memory (0: not modelled).
  sim::PageFaultParams page_faults;
};

struct HardwareSpec {
  sim::CpuParams cpu;
  OsCosts os;
  sim::NvmeParams wal_device;
  sim::NvmeParams data_device;
  /// Where pgbench runs: "server" (same cores as PostgreSQL) or "client" (its own machine).
  bool separate_client   = false;
  int client_cores       = 16;
  double network_latency = 0; // one way, seconds, on top of the processes' wake-ups
};

/// pgbench's built-in scripts, and the custom insert-only one.
enum class Script { TpcbLike, SimpleUpdate, SelectOnly, TpcbFunc, InsertOnly };

/// CPU costs of PostgreSQL code paths, in nanoseconds at the hardware's reference clock.
struct Costs {
  // Protocol and executor, per statement.
  double protocol_simple;   // parse, analyze, plan and execute setup for a simple-protocol query
  double protocol_extended; // parse/bind/execute messages with an unnamed statement
  double protocol_prepared; // bind/execute of a prepared statement
  double function_call;     // calling a PL/pgSQL function (tpcb-func), and per SPI statement
  double begin_end;         // BEGIN or END without the commit work itself
  double select_row;        // executor work of a single-row select, besides heap access
  double update_row;        // executor work of an update, besides heap access and WAL
  double insert_row;        // executor work of an insert, besides heap access and WAL
  double index_descent;     // one B-tree descent to a leaf
  double index_insert;      // inserting an index entry (non-HOT update, insert)
  double heap_fetch;        // fetching one tuple version from a pinned page
  double visibility_check;  // HeapTupleSatisfiesMVCC when hint bits answer it
  double snapshot;          // GetSnapshotData fixed work under ProcArrayLock
  double snapshot_per_proc; // GetSnapshotData per PGPROC scanned
  double xid_assign;        // GetNewTransactionId under XidGenLock
  double lock_manager;      // LockAcquire / LockRelease of a heavyweight lock
  double commit;            // CommitTransaction besides WAL, CLOG and ProcArray
  double procarray_end;     // ProcArrayEndTransaction under ProcArrayLock
  double clog_fetch;        // finding a transaction's status on a CLOG page
  double clog_set;          // setting one transaction's status on a CLOG page
  double hint_bit;          // setting a hint bit (MarkBufferDirtyHint on a dirty page)
  double prune_per_tuple;   // heap_page_prune per tuple examined
  double buffer_pin;        // PinBuffer / UnpinBuffer bookkeeping besides the atomic
  double buffer_alloc;      // BufferAlloc for a block not in shared_buffers, besides the clock sweep
  double flush_buffer;      // FlushBuffer and mdwrite around the write() of a dirty victim
  // WAL.
  double xlog_assemble;         // XLogRecordAssemble per record
  double xlog_crc_per_kb;       // CRC and assembly per kB of record data
  double xlog_copy_per_kb;      // CopyXLogRecordToWAL per kB, under the insertion lock
  double xlog_page_init;        // AdvanceXLInsertBuffer initialising one WAL page
  double spinlock_section;      // work inside a short spinlock section (insertpos_lck, info_lck)
  double lwlock_acquire;        // LWLockAcquire's or LWLockRelease's own code, besides the atomic
  double xlog_insert_lock_scan; // WaitXLogInsertionsToFinish per insertion lock checked
  double walwriter_loop;        // one WAL writer cycle besides the flush itself
  // pgbench (client side), per command.
  double client_command;     // building, sending a command and reading its result
  double client_transaction; // per transaction: \set random draws, bookkeeping
  // Bytes a client's backend touches again whenever it runs (catalog and plan caches, shared
  // hash tables, code): what it refills after other processes pushed them out of its core's cache.
  double backend_working_set;
  // Distinct pages of shared memory a backend touches per transaction, by script, in 4 kB pages
  // and with huge_pages in 2 MB ones: the address translations it needs again in each transaction
  // (used with hardware.cpu.translation).
  std::map<Script, double> shared_pages_per_transaction;
  std::map<Script, double> shared_huge_pages_per_transaction;
};

/// The server's settings: postgresql.conf GUCs and the compile-time constants under study.
struct Settings {
  double shared_buffers         = 128.0 * 1024 * 1024;
  bool huge_pages               = false; // shared memory mapped in 2 MB pages
  double wal_buffers            = -1;    // -1: 1/32 of shared_buffers, at most one WAL segment
  bool synchronous_commit       = true;
  bool fsync                    = true;
  bool full_page_writes         = true;
  bool wal_log_hints            = false;
  double wal_writer_delay       = 0.2;
  double wal_writer_flush_after = 1024.0 * 1024;
  double commit_delay           = 0;
  int commit_siblings           = 5;
  double checkpoint_timeout     = 300;
  double max_wal_size           = 1024.0 * 1024 * 1024;
  double wal_segment_size       = 16.0 * 1024 * 1024;
  int max_connections           = 100;
  int num_xloginsert_locks      = 8;  // NUM_XLOGINSERT_LOCKS
  int num_clog_buffers          = -1; // NUM_CLOG_BUFFERS; -1: Min(128, Max(4, NBuffers / 512))
  // The background writer's LRU cleaning (acts only once the tables outgrow shared_buffers).
  double bgwriter_delay          = 0.2;
  int bgwriter_lru_maxpages      = 100;
  double bgwriter_lru_multiplier = 2.0;
};

enum class WalWriterWakeup {
  Always,        // SetLatch on every asynchronous commit
  UnflushedPage, // a completed page not yet flushed, or the writer hibernates (9.2-16)
  UnwrittenPage, // a completed page not yet written, flush_after reached, or hibernating
  Hibernating,   // only when the writer is in its long sleep
};
enum class WalWriterFlush {
  AllWritten,        // each cycle flushes everything it writes (9.2-9.5)
  DelayOrFlushAfter, // flush after wal_writer_delay or wal_writer_flush_after (9.6+)
};
enum class HintBitRule {
  Always,           // set as soon as the transaction is known committed ("test removed")
  Flushed,          // only once the commit record is flushed
  FlushedOrPageLsn, // ... or when the page's LSN is at or past the commit record
};

enum class InProgressTest {
  Snapshot,  // XidInMVCCSnapshot: the snapshot says whether the transaction still runs (9.6+)
  ProcArray, // TransactionIdIsInProgress: a scan of the ProcArray under ProcArrayLock (to 9.5)
};

struct Policies {
  WalWriterWakeup walwriter_wakeup = WalWriterWakeup::UnflushedPage;
  WalWriterFlush walwriter_flush   = WalWriterFlush::DelayOrFlushAfter;
  HintBitRule hint_bits            = HintBitRule::FlushedOrPageLsn;
  InProgressTest in_progress_test  = InProgressTest::Snapshot;
  bool clog_group_update           = true;
  bool procarray_group_clear       = true;
  sim::LWLockParams lwlock;
  sim::LatchParams latch; // signal_always and wait_set_per_call; the costs come from hardware.os
};

enum class Protocol { Simple, Extended, Prepared };

struct PgbenchSpec {
  Script script        = Script::TpcbLike;
  Protocol protocol    = Protocol::Simple;
  int scale            = 1;
  int clients          = 1;
  int jobs             = 1;
  int fillfactor       = 100;
  bool unlogged_tables = false;
  /// The tables as pgbench -i leaves them ("initialized": heap pages full to fillfactor), or as
  /// earlier runs on the same database leave them ("reused": pruning has left each heap page
  /// room for one more tuple version, so a row's first update can be HOT).
  bool reused_tables = false;
  /// Heap pages holding the rows of pgbench_branches and pgbench_tellers at the start, spread
  /// there by earlier runs' non-HOT updates (pgbench.heap_pages); by default as many as pgbench -i fills.
  std::uint32_t branches_pages = 0;
  std::uint32_t tellers_pages  = 0;
  /// Transactions of this script that ran on the database since pgbench -i (with no VACUUM since)
  /// before the simulated window: the xids they used precede the window's, and each row they
  /// updated carries, unhinted, the xid of its last updater (pgbench.prior_transactions).
  std::uint64_t prior_transactions = 0;
  int insert_rows                  = 1;   // insert-only script: rows per transaction
  double insert_row_size           = 100; // insert-only script: bytes of user data per row
};

/// A client sampling pg_stat_activity while the benchmark runs (psql's \watch), as the
/// measurements a run is compared with did.
struct ActivitySampling {
  double interval = 0; // seconds from one query's end to the next one; 0: no sampler
  double query    = 0; // the sampler's backend's CPU per query (parse, plan, run), ns at the reference clock
  double client   = 0; // the client's CPU per sample (sending, reading, printing), ns at the reference clock
};

struct RunSpec {
  std::uint64_t seed = 1;
  double warmup      = 1;
  double duration    = 10; // pgbench -T, simulated seconds measured
  double progress    = 0;  // pgbench -P
  /// Check invariants (LSN order, hint-bit rules) while simulating; costs a little speed.
  bool check_invariants = true;
  /// A CHECKPOINT just before the run, as the reference runs do: every page's first change
  /// then carries a full-page image. Off: the last checkpoint is checkpoint_timeout away.
  bool checkpoint_at_start = true;
  ActivitySampling activity_sampling;
  /// What runs: "pgbench", or "seqscan" (the scan series of scan_scenario.hpp / scan_run.hpp).
  std::string workload = "pgbench";
};

struct Scenario {
  std::string file;
  HardwareSpec hardware;
  Costs costs;
  Settings settings;
  Policies policies;
  PgbenchSpec pgbench;
  RunSpec run;
  ScanSpec scan;           // read only when run.workload is "seqscan"
  nlohmann::json resolved; // every key with its effective value
};

/// Validates and types a scenario document. Throws sim::config::Error listing every problem.
Scenario read_scenario(const sim::config::Document& doc);

std::string to_string(Script script);
std::string to_string(WalWriterWakeup wakeup);
std::string to_string(WalWriterFlush flush);
std::string to_string(HintBitRule rule);

} // namespace pg
