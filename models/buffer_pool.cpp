/* The buffer pool's descriptors, mapping table, free list, clock sweep and rings (freelist.c,
 * buf_table.c, PostgreSQL 9.1). See buffer_pool.hpp. */
#include "models/buffer_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pg {

namespace {
// GetAccessStrategy's ring sizes, in bytes.
constexpr int kBulkReadRing  = 256 * 1024;
constexpr int kVacuumRing    = 256 * 1024;
constexpr int kBulkWriteRing = 16 * 1024 * 1024;
} // namespace

BufferAccessStrategy::BufferAccessStrategy(BufferAccessStrategyType type, int ring_size)
    : type_(type), buffers_(static_cast<std::size_t>(std::max(ring_size, 0)), -1)
{
}

BufferAccessStrategy GetAccessStrategy(BufferAccessStrategyType btype, int NBuffers)
{
  int bytes = 0;
  switch (btype) {
  case BufferAccessStrategyType::Normal:
    return BufferAccessStrategy(btype, 0);
  case BufferAccessStrategyType::BulkRead:
    bytes = kBulkReadRing;
    break;
  case BufferAccessStrategyType::BulkWrite:
    bytes = kBulkWriteRing;
    break;
  case BufferAccessStrategyType::Vacuum:
    bytes = kVacuumRing;
    break;
  }
  // Make sure the ring isn't an undue fraction of shared buffers.
  return BufferAccessStrategy(btype, std::min(NBuffers / 8, bytes / BLCKSZ));
}

BufferPool::BufferPool(int NBuffers)
{
  if (NBuffers < 16) throw std::invalid_argument("BufferPool: at least 16 buffers, got " + std::to_string(NBuffers));
  descriptors_.resize(static_cast<std::size_t>(NBuffers));
  // Initially every buffer is on the free list, buffer 0 first.
  for (int i = NBuffers - 1; i >= 0; i--) {
    descriptors_[static_cast<std::size_t>(i)].buf_id = i;
    free_list_.push_back(i);
  }
}

int BufferPool::BufTableLookup(const BufferTag& tag) const
{
  const auto it = table_.find(tag.key());
  return it == table_.end() ? -1 : it->second;
}

void BufferPool::BufTableInsert(const BufferTag& tag, int buf_id)
{
  table_[tag.key()] = buf_id;
}

void BufferPool::BufTableDelete(const BufferTag& tag)
{
  table_.erase(tag.key());
}

// The ring's next slot, if the buffer there can be reused: nobody else pinned it and nobody
// else used it since (a usage count above one means another backend did).
int BufferPool::GetBufferFromRing(BufferAccessStrategy* strategy)
{
  if (++strategy->current_ >= strategy->ring_size()) strategy->current_ = 0;
  const int buf_id               = strategy->buffers_[static_cast<std::size_t>(strategy->current_)];
  strategy->current_was_in_ring_ = false;
  if (buf_id < 0) return -1;
  const BufferDesc& buf = GetBufferDescriptor(buf_id);
  if (buf.refcount == 0 && buf.usage_count <= 1) {
    strategy->current_was_in_ring_ = true;
    return buf_id;
  }
  return -1;
}

void BufferPool::AddBufferToRing(BufferAccessStrategy* strategy, int buf_id)
{
  strategy->buffers_[static_cast<std::size_t>(strategy->current_)] = buf_id;
}

int BufferPool::StrategySyncStart(std::uint64_t* num_buf_alloc)
{
  *num_buf_alloc   = allocs_ - allocs_reported_;
  allocs_reported_ = allocs_;
  return nextVictimBuffer_;
}

int BufferPool::StrategyGetBuffer(BufferAccessStrategy* strategy, VictimSource* from)
{
  allocs_++;
  const bool ring = strategy != nullptr && strategy->ring_size() > 0;
  if (ring) {
    const int buf_id = GetBufferFromRing(strategy);
    if (buf_id >= 0) {
      stats_.ring_reuses++;
      *from = VictimSource::Ring;
      return buf_id;
    }
  }
  while (!free_list_.empty()) {
    const int buf_id = free_list_.back();
    free_list_.pop_back();
    const BufferDesc& buf = GetBufferDescriptor(buf_id);
    // A buffer someone pinned or used since it was freed is not free any more.
    if (buf.refcount == 0 && buf.usage_count == 0) {
      if (ring) AddBufferToRing(strategy, buf_id);
      stats_.freelist_allocs++;
      *from = VictimSource::FreeList;
      return buf_id;
    }
  }
  int trycounter = NBuffers();
  for (;;) {
    BufferDesc& buf = GetBufferDescriptor(nextVictimBuffer_);
    if (++nextVictimBuffer_ >= NBuffers()) nextVictimBuffer_ = 0;
    stats_.clock_ticks++;
    if (buf.refcount == 0) {
      if (buf.usage_count > 0) {
        buf.usage_count--;
        trycounter = NBuffers();
      } else {
        if (ring) AddBufferToRing(strategy, buf.buf_id);
        stats_.clock_sweep_allocs++;
        *from = VictimSource::ClockSweep;
        return buf.buf_id;
      }
    } else if (--trycounter == 0) {
      throw std::runtime_error("no unpinned buffers available");
    }
  }
}

bool BufferPool::StrategyRejectBuffer(BufferAccessStrategy* strategy, int buf_id)
{
  if (strategy == nullptr || strategy->type() != BufferAccessStrategyType::BulkRead) return false;
  auto& slot = strategy->buffers_[static_cast<std::size_t>(strategy->current_)];
  if (!strategy->current_was_in_ring_ || slot != buf_id) return false;
  // Forget the buffer, so that the next allocation in this slot takes a new one.
  slot = -1;
  return true;
}

void BufferPool::StrategyFreeBuffer(int buf_id)
{
  free_list_.push_back(buf_id);
}

void BufferPool::PinBuffer(int buf_id, const BufferAccessStrategy* strategy)
{
  BufferDesc& buf = GetBufferDescriptor(buf_id);
  buf.refcount++;
  if (strategy == nullptr || strategy->ring_size() == 0) {
    if (buf.usage_count < BM_MAX_USAGE_COUNT) buf.usage_count++;
  } else if (buf.usage_count == 0) {
    buf.usage_count = 1;
  }
}

void BufferPool::UnpinBuffer(int buf_id)
{
  BufferDesc& buf = GetBufferDescriptor(buf_id);
  if (buf.refcount <= 0) throw std::logic_error("UnpinBuffer: buffer " + std::to_string(buf_id) + " is not pinned");
  buf.refcount--;
}

} // namespace pg
