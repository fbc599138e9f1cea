/* shared_buffers for the pgbench tables once they outgrow it: ReadBuffer_common and BufferAlloc
 * (bufmgr.c) with freelist.c's clock sweep, PostgreSQL 15.
 *
 * While every heap page of the tables and every leaf page of their primary keys fits in
 * NBuffers, nothing is tracked and nothing is charged: every page stays resident, as after a
 * warm-up. Once they do not fit (at setup, or when inserts extend a table past it), a page
 * outside shared_buffers costs its backend a buffer: a victim from the clock sweep (each tick an
 * atomic on the shared clock hand), written out first if dirty (FlushBuffer: XLogFlush up to
 * the page's LSN, then write() into the OS page cache), and the page read() from the OS page
 * cache. The page cache is taken to hold the whole database, as on a machine whose RAM exceeds
 * it: data reads never reach the device. B-tree inner pages, few and hot, are left out; so are
 * the background writer's and the checkpointer's writes, so backends write every dirty victim
 * themselves (pg_stat_io's "client backend" writes).
 */
#pragma once

#include "models/backend.hpp"
#include "models/buffer_pool.hpp"
#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
#include "sim/cacheline.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace pg {

class Xlog;

/// pg_stat_io for the pgbench relations (client backends, normal context), over the window.
struct SharedBufferStats {
  std::uint64_t hits            = 0;
  std::uint64_t reads           = 0; // pages read into shared_buffers
  std::uint64_t extends         = 0; // new pages of an extended relation (no read)
  std::uint64_t evictions       = 0; // a valid page pushed out to make room
  std::uint64_t writes          = 0; // dirty victims written by the backend that needed the buffer
  std::uint64_t bgwriter_writes = 0; // dirty buffers the background writer cleaned ahead of the clock
  std::uint64_t wal_flushes     = 0; // ... of which had to flush WAL first (their LSN was unflushed)
  std::uint64_t clock_ticks     = 0; // buffers the clock hand passed over
  void reset() { *this = SharedBufferStats(); }
};

class SharedBuffers {
public:
  SharedBuffers(const Scenario& scenario, const WaitEvents& events, Xlog& xlog);

  /// Registers a table (and its primary key's leaves, if it has one) before the run starts.
  void add_relation(Relation& rel, bool primary_key);
  /// After setup: starts tracking if the registered pages already exceed shared_buffers.
  void start();

  /// PinBuffer's way in: the page is found in shared_buffers or read into it, and pinned.
  void pin(Backend& me, const HeapPage& page);
  void unpin(const HeapPage& page);
  /// A B-tree descent's or insertion's visit to a primary-key leaf (pinned, then released).
  void visit_leaf(Backend& me, const Relation& rel, std::uint32_t leaf);
  /// ReadBuffer(P_NEW) after a relation was extended by one block: a buffer without a read.
  void extend(Backend& me, const Relation& rel, std::uint32_t block);
  /// BgBufferSync, one background-writer round: writes dirty buffers that the clock sweep will
  /// soon reuse, ahead of it. Returns how many it wrote.
  int BgBufferSync(Backend& bgwriter);

  bool active() const { return pool_ != nullptr; }
  /// Whether the page is in shared_buffers (always, while untracked).
  bool resident(const HeapPage& page) const;
  int NBuffers() const { return nbuffers_; }
  /// Pages of the registered relations and primary-key leaves.
  std::uint64_t total_pages() const;
  SharedBufferStats& stats() { return stats_; }

private:
  struct Source {
    Relation* rel;
    bool index;
    std::uint32_t pages() const { return index ? rel->index_leaves() : rel->nblocks(); }
  };
  const Source& source(std::uint32_t relnode) const { return sources_.at(relnode); }
  void activate();
  void preload();
  /// Puts the page in a free buffer, already pinned `pins` times (setup, without costs).
  void load(BufferTag tag, int pins);
  int ReadBuffer(Backend& me, BufferTag tag, bool is_new);
  int StrategyGetBuffer();
  /// *raced: another backend read the block in meanwhile, and its buffer is returned, pinned.
  int BufferAlloc(Backend& me, BufferTag tag, bool* raced);
  void pin_and_wait(Backend& me, int buf_id);
  void FlushBuffer(Backend& me, BufferDesc& buf);
  XLogRecPtr page_lsn(BufferTag tag) const;
  bool is_dirty(const BufferDesc& buf) const;
  void mark_clean(BufferDesc& buf);

  const Scenario& scenario_;
  const WaitEvents& ev_;
  Xlog& xlog_;
  int nbuffers_;
  std::vector<Source> sources_; // by relnode
  std::unique_ptr<BufferPool> pool_;
  std::vector<double> io_done_; // by buffer: when the read that filled it completes
  sim::CacheLine clock_hand_;   // StrategyControl->nextVictimBuffer
  // BgBufferSync's state: the allocation rate it smooths, and how far ahead of the clock hand it
  // has cleaned (in clock ticks since tracking began).
  double smoothed_alloc_       = 0;
  std::uint64_t next_to_clean_ = 0;
  SharedBufferStats stats_;
};

} // namespace pg
