/* shared_buffers: NBuffers buffer descriptors of 8kB pages, the buffer mapping table, the free list,
 * the clock sweep and the ring buffers of buffer access strategies, following
 * src/backend/storage/buffer/freelist.c and buf_table.c of PostgreSQL 9.1 (StrategyGetBuffer,
 * GetBufferFromRing, AddBufferToRing, StrategyRejectBuffer, GetAccessStrategy). The algorithm is
 * the same in PostgreSQL 15 (which takes the buffer header lock differently); the ring sizes are
 * those of 9.1 to 15: 256kB for bulk reads and VACUUM, 16MB for bulk writes, each at most
 * NBuffers / 8.
 *
 * This file is the data structure only: who pays for what, and the I/O, are in buffer_manager.hpp.
 */
#pragma once

#include "models/types.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace pg {

/// BM_MAX_USAGE_COUNT (buf_internals.h): the clock sweep's usage counts saturate here.
constexpr int BM_MAX_USAGE_COUNT = 5;

/// A buffer's page as far as the scan models care: the visibility facts hint bits record.
enum class XminHint : std::uint8_t {
  None,      // neither HEAP_XMIN_COMMITTED nor HEAP_XMIN_INVALID: ask the CLOG
  Committed, // HEAP_XMIN_COMMITTED on every tuple of the page
  Invalid,   // HEAP_XMIN_INVALID on every tuple of the page
};

struct PageImage {
  XminHint xmin_hint = XminHint::None;
  bool all_visible   = false;             // PD_ALL_VISIBLE, set by VACUUM
  XLogRecPtr lsn     = InvalidXLogRecPtr; // PageGetLSN
  bool operator==(const PageImage& o) const
  {
    return xmin_hint == o.xmin_hint && all_visible == o.all_visible && lsn == o.lsn;
  }
};

/// BufferTag: which relation block a buffer holds (one fork, the main one).
struct BufferTag {
  std::uint32_t relNode  = 0;
  std::uint32_t blockNum = 0;
  std::uint64_t key() const { return (static_cast<std::uint64_t>(relNode) << 32) | blockNum; }
};

/// BufferDesc: a buffer header and the page it holds.
struct BufferDesc {
  int buf_id = 0;
  BufferTag tag;
  bool tag_valid  = false; // BM_TAG_VALID
  bool valid      = false; // BM_VALID: the page was read in
  bool dirty      = false; // BM_DIRTY
  bool hint_dirty = false; // dirty only through MarkBufferDirtyHint since it was last clean
  int refcount    = 0;
  int usage_count = 0;
  PageImage page;
};

enum class BufferAccessStrategyType { Normal, BulkRead, BulkWrite, Vacuum };

/// A ring of buffers a large scan recycles instead of flooding shared_buffers (freelist.c).
class BufferAccessStrategy {
public:
  BufferAccessStrategy(BufferAccessStrategyType type, int ring_size);
  BufferAccessStrategyType type() const { return type_; }
  int ring_size() const { return static_cast<int>(buffers_.size()); }

private:
  friend class BufferPool;
  BufferAccessStrategyType type_;
  std::vector<int> buffers_; // -1: slot not filled yet
  int current_              = -1;
  bool current_was_in_ring_ = false;
};

/// GetAccessStrategy: the ring for btype, sized as freelist.c sizes it for this pool.
BufferAccessStrategy GetAccessStrategy(BufferAccessStrategyType btype, int NBuffers);

/// Where StrategyGetBuffer found its victim, for pg_stat_io's reuses and evictions.
enum class VictimSource { Ring, FreeList, ClockSweep };

struct BufferPoolStats {
  std::uint64_t freelist_allocs    = 0;
  std::uint64_t ring_reuses        = 0;
  std::uint64_t clock_sweep_allocs = 0;
  std::uint64_t clock_ticks        = 0; // buffers the clock hand passed over
  void reset() { *this = BufferPoolStats(); }
};

class BufferPool {
public:
  explicit BufferPool(int NBuffers);

  int NBuffers() const { return static_cast<int>(descriptors_.size()); }
  BufferDesc& GetBufferDescriptor(int buf_id) { return descriptors_.at(static_cast<std::size_t>(buf_id)); }
  const BufferDesc& GetBufferDescriptor(int buf_id) const { return descriptors_.at(static_cast<std::size_t>(buf_id)); }

  // buf_table.c
  /// BufTableLookup: the buffer holding tag, or -1.
  int BufTableLookup(const BufferTag& tag) const;
  void BufTableInsert(const BufferTag& tag, int buf_id);
  void BufTableDelete(const BufferTag& tag);

  /// StrategyGetBuffer: a buffer to (re)use, unpinned and with a zero usage count, from the
  /// strategy's ring, the free list or the clock sweep; *from says which. Throws
  /// std::runtime_error when every buffer is pinned ("no unpinned buffers available").
  int StrategyGetBuffer(BufferAccessStrategy* strategy, VictimSource* from);
  /// StrategyRejectBuffer: a bulk read does not write out a dirty ring buffer whose WAL would
  /// have to be flushed first; the buffer leaves the ring and the caller asks for another one.
  static bool StrategyRejectBuffer(BufferAccessStrategy* strategy, int buf_id);
  /// StrategyFreeBuffer: put a buffer back on the free list (InvalidateBuffer).
  void StrategyFreeBuffer(int buf_id);

  /// PinBuffer's usage-count rule: a strategy's pin only keeps the buffer from looking unused.
  void PinBuffer(int buf_id, const BufferAccessStrategy* strategy);
  void UnpinBuffer(int buf_id);

  int free_list_length() const { return static_cast<int>(free_list_.size()); }
  /// StrategySyncStart: where the clock hand points, and the buffers allocated since the last
  /// call (for the background writer).
  int StrategySyncStart(std::uint64_t* num_buf_alloc);
  BufferPoolStats& stats() { return stats_; }

private:
  int GetBufferFromRing(BufferAccessStrategy* strategy);
  static void AddBufferToRing(BufferAccessStrategy* strategy, int buf_id);

  std::vector<BufferDesc> descriptors_;
  std::unordered_map<std::uint64_t, int> table_; // the buffer mapping table
  std::vector<int> free_list_;                   // a stack: back() is firstFreeBuffer
  int nextVictimBuffer_          = 0;
  std::uint64_t allocs_          = 0; // StrategyGetBuffer calls, for StrategySyncStart
  std::uint64_t allocs_reported_ = 0;
  BufferPoolStats stats_;
};

} // namespace pg
