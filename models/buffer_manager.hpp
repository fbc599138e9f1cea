/* Reading relation blocks through shared_buffers and writing dirty buffers back, following
 * src/backend/storage/buffer/bufmgr.c and src/backend/storage/smgr/md.c of PostgreSQL 9.1
 * (ReadBuffer_common, BufferAlloc, FlushBuffer, MarkBufferDirty, SetBufferCommitInfoNeedsSave,
 * which 9.3 renamed MarkBufferDirtyHint; mdread, mdwrite, register_dirty_segment). PostgreSQL 15
 * does the same steps; it adds WAL-logging of hint bits with data checksums or wal_log_hints,
 * modelled here as the wal_log_hints setting.
 *
 * A buffer dirtied only through MarkBufferDirtyHint is marked as such (BufferDesc::hint_dirty),
 * so that a HintBitIoPolicy can decide whether evicting it writes it.
 */
#pragma once

#include "models/backend.hpp"
#include "models/buffer_pool.hpp"
#include "models/hint_io.hpp"
#include "models/os_cache.hpp"
#include "models/sync_queue.hpp"
#include "models/xlog.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace pg {

/// A relation's main fork as md.c sees it: what reading each block returns.
class SmgrRelation {
public:
  SmgrRelation(std::string name, std::uint32_t relNode, std::uint32_t nblocks);
  const std::string& name() const { return name_; }
  std::uint32_t relNode() const { return relNode_; }
  std::uint32_t nblocks() const { return static_cast<std::uint32_t>(blocks_.size()); }
  /// The page as stored in the file (in the OS page cache or on the device).
  PageImage& stored(std::uint32_t block) { return blocks_.at(block); }
  const PageImage& stored(std::uint32_t block) const { return blocks_.at(block); }
  /// The segment file a block lives in, and the page cache's name for that file.
  FileTag segment(std::uint32_t block) const { return FileTag{relNode_, block / RELSEG_SIZE}; }
  std::uint32_t os_file(std::uint32_t block) const;

private:
  std::string name_;
  std::uint32_t relNode_;
  std::vector<PageImage> blocks_;
};

/// CPU costs of the buffer manager, in nanoseconds at the reference clock.
struct BufferCosts {
  double buffer_lookup = 0; // BufTableHashCode + BufTableLookup under the mapping partition lock
  double buffer_alloc  = 0; // StrategyGetBuffer, the mapping table update, header bookkeeping
  double buffer_pin    = 0; // PinBuffer / UnpinBuffer
  double flush_buffer  = 0; // FlushBuffer and mdwrite, besides the write() itself
};

/// pg_stat_io's counters for one backend (backend_type "client backend", object "relation"),
/// summed over contexts, plus hint-bit counts.
struct IoCounters {
  std::uint64_t reads               = 0; // blocks read into shared_buffers
  std::uint64_t hits                = 0; // blocks found in shared_buffers
  std::uint64_t evictions           = 0; // a valid buffer from the free list / clock sweep
  std::uint64_t reuses              = 0; // a valid buffer of the strategy's own ring
  std::uint64_t writes              = 0; // dirty buffers this backend wrote out
  std::uint64_t hint_writes         = 0; // ... of which were dirty only by hint bits
  std::uint64_t hint_writes_skipped = 0; // hint-only buffers evicted without a write
  std::uint64_t dirtied_by_hints    = 0; // clean buffers MarkBufferDirtyHint made dirty
  std::uint64_t rejected            = 0; // StrategyRejectBuffer refusals (WAL not flushed yet)
  std::uint64_t fsync_requests      = 0; // writes whose fsync went to the checkpointer's queue
  std::uint64_t fsyncs              = 0; // writes the backend had to fsync itself
  double read_time                  = 0; // seconds
  double write_time                 = 0;
  double fsync_time                 = 0;
};

/// What a backend brings to a buffer operation: itself, its hint-bit budget, its counters.
struct BackendIo {
  Backend& me;
  HintBitIoPolicy& hint_io;
  IoCounters& counters;
};

class BufferManager {
public:
  BufferManager(BufferPool& pool, OsPageCache& os, SyncRequestQueue& sync, Xlog& xlog, const BufferCosts& costs,
                bool wal_log_hints);

  void add_relation(SmgrRelation& rel);

  /// ReadBufferExtended(rel, MAIN_FORKNUM, block, RBM_NORMAL, strategy): the pinned buffer.
  int ReadBufferExtended(BackendIo& io, SmgrRelation& rel, std::uint32_t block, BufferAccessStrategy* strategy);
  void ReleaseBuffer(int buf_id);
  PageImage& BufferGetPage(int buf_id) { return pool_.GetBufferDescriptor(buf_id).page; }
  /// MarkBufferDirty: a change WAL-logged or otherwise real, always to be written.
  void MarkBufferDirty(int buf_id);
  /// MarkBufferDirtyHint: a change only to hint bits (with wal_log_hints, the page's first
  /// change after a checkpoint logs a full-page image first).
  void MarkBufferDirtyHint(BackendIo& io, int buf_id);

  /// The state CREATE TABLE AS with a bulk-write ring leaves behind once it synced the table:
  /// the ring's last buffers hold the table's last pages, clean (setup, without costs).
  void load_through_ring(SmgrRelation& rel, BufferAccessStrategy& ring);

  BufferPool& pool() { return pool_; }

private:
  int BufferAlloc(BackendIo& io, SmgrRelation& rel, std::uint32_t block, BufferAccessStrategy* strategy, bool* found);
  /// Writes out or drops a dirty victim; false when a bulk read rejects it instead.
  bool clean_victim(BackendIo& io, int buf_id, BufferAccessStrategy* strategy);
  void FlushBuffer(BackendIo& io, BufferDesc& buf);
  void register_dirty_segment(BackendIo& io, SmgrRelation& rel, std::uint32_t block);
  SmgrRelation& relation(std::uint32_t relNode);

  BufferPool& pool_;
  OsPageCache& os_;
  SyncRequestQueue& sync_;
  Xlog& xlog_;
  BufferCosts costs_;
  bool wal_log_hints_;
  std::unordered_map<std::uint32_t, SmgrRelation*> relations_;
};

} // namespace pg
