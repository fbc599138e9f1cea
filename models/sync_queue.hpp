/* The fsync request queue between backends and the process that fsyncs data files at checkpoints,
 * following src/backend/postmaster/checkpointer.c of PostgreSQL 15 (ForwardSyncRequest,
 * CompactCheckpointerRequestQueue, AbsorbSyncRequests; RegisterSyncRequest of sync.c), which is
 * 9.1's bgwriter.c (ForwardFsyncRequest, CompactBgwriterRequestQueue, AbsorbFsyncRequests) moved.
 *
 * A backend that writes a data file block asks for the file segment to be fsynced at the next
 * checkpoint by appending a request to a shared queue of max_requests = NBuffers entries, under
 * CheckpointerCommLock (BgWriterCommLock in 9.1), without looking for duplicates. When the queue
 * is full the backend compacts it, dropping every request that a later identical one repeats
 * (added in January 2011, first released in 9.1); before that, or when nothing can be dropped,
 * the backend fsyncs the file itself. Both are scenario settings, so the 2011 thread's "before
 * compaction" and "after compaction" runs can be simulated.
 */
#pragma once

#include "models/scan_scenario.hpp"
#include "sim/lwlock.hpp"
#include "sim/proc.hpp"

#include <cstdint>
#include <set>
#include <vector>

namespace pg {

/// FileTag (sync.h): a relation's segment file, RELSEG_SIZE blocks each.
struct FileTag {
  std::uint32_t relNode = 0;
  std::uint32_t segno   = 0;
  bool operator==(const FileTag& o) const { return relNode == o.relNode && segno == o.segno; }
  bool operator<(const FileTag& o) const { return relNode != o.relNode ? relNode < o.relNode : segno < o.segno; }
};

/// RELSEG_SIZE: blocks per 1GB segment file (md.c).
constexpr std::uint32_t RELSEG_SIZE = 131072;

enum class ForwardResult { Queued, QueuedAfterCompaction, QueueFull };

/// CheckpointerShmem's requests[] array: the data structure, without locking or costs.
class CheckpointerRequestQueue {
public:
  CheckpointerRequestQueue(int max_requests, bool compaction);

  /// The queue's side of ForwardSyncRequest: append, compacting first if the queue is full.
  ForwardResult Forward(const FileTag& tag);
  /// CompactCheckpointerRequestQueue: keeps only the last of identical requests; returns how many
  /// were removed (0: nothing could be, the queue stays full).
  int CompactCheckpointerRequestQueue();
  /// AbsorbSyncRequests' copy-and-clear.
  std::vector<FileTag> Absorb();

  int num_requests() const { return static_cast<int>(requests_.size()); }
  int max_requests() const { return max_requests_; }
  bool compaction() const { return compaction_; }
  /// "If queue is more than half full, nudge the checkpointer to empty it" (9.2 and later).
  bool too_full() const { return num_requests() >= max_requests_ / 2; }

private:
  int max_requests_;
  bool compaction_;
  std::vector<FileTag> requests_;
};

struct SyncQueueParams {
  int max_requests       = 0;
  bool compaction        = true;
  SyncQueueWakeup wakeup = SyncQueueWakeup::HalfFull;
  double forward_ns      = 0; // ForwardSyncRequest's work under the lock
  double compact_ns      = 0; // CompactCheckpointerRequestQueue, per request examined
  double absorb_ns       = 0; // RememberSyncRequest, per request absorbed
  double set_latch       = 0; // seconds: SetLatch on another process (a signal)
};

/// pg_stat_bgwriter's buffers_backend and buffers_backend_fsync, and the queue's own counts.
struct SyncQueueStats {
  std::uint64_t requests      = 0; // requests forwarded into the queue
  std::uint64_t compactions   = 0;
  std::uint64_t compacted     = 0; // requests compaction removed
  std::uint64_t backend_fsync = 0; // writes whose request did not fit: the backend fsynced
  std::uint64_t absorbed      = 0;
  std::uint64_t absorbs       = 0;
  std::uint64_t nudges        = 0;
  void reset() { *this = SyncQueueStats(); }
};

/// The queue as processes use it: CheckpointerCommLock, the costs, the absorber's latch.
class SyncRequestQueue {
public:
  SyncRequestQueue(const SyncQueueParams& params, sim::WaitEventId lock_event, const sim::LWLockParams& lock_params);

  /// ForwardSyncRequest: false when the caller must fsync the file itself.
  bool ForwardSyncRequest(sim::Proc& me, const FileTag& tag);
  /// AbsorbSyncRequests, run by the absorber: requests move into its pending-operations table.
  void AbsorbSyncRequests(sim::Proc& me);
  /// ProcGlobal->checkpointerLatch: the process to nudge when the queue is half full.
  void set_absorber(sim::Proc* absorber) { absorber_ = absorber; }

  const SyncQueueParams& params() const { return params_; }
  const CheckpointerRequestQueue& queue() const { return queue_; }
  /// pendingOps: the segments the next checkpoint will fsync.
  const std::set<FileTag>& pending_ops() const { return pending_ops_; }
  sim::LWLock& lock() { return CheckpointerCommLock_; }
  SyncQueueStats& stats() { return stats_; }

private:
  SyncQueueParams params_;
  CheckpointerRequestQueue queue_;
  sim::LWLock CheckpointerCommLock_;
  sim::Proc* absorber_ = nullptr;
  bool latch_set_      = false; // the absorber's latch is set and it has not absorbed since
  std::set<FileTag> pending_ops_;
  SyncQueueStats stats_;
};

} // namespace pg
