/* bufmgr.c's read and write paths and md.c's block I/O (PostgreSQL 9.1). See buffer_manager.hpp. */
#include "models/buffer_manager.hpp"

#include <stdexcept>

namespace pg {

namespace {
// XLogSaveBufferForHint's record: header, block reference and the page image.
constexpr double kHintImageRecord = 24 + 2 + 20 + BLCKSZ;
// Files per relation the page cache's names leave room for (1GB segments).
constexpr std::uint32_t kSegmentsPerRelation = 4096;

// Seconds a piece of I/O took the calling process, accrued system-call time included.
class IoTimer {
public:
  explicit IoTimer(const sim::Proc& proc) : proc_(proc), start_(proc.local_time()) {}
  double seconds() const { return proc_.local_time() - start_; }

private:
  const sim::Proc& proc_;
  double start_;
};
} // namespace

SmgrRelation::SmgrRelation(std::string name, std::uint32_t relNode, std::uint32_t nblocks)
    : name_(std::move(name)), relNode_(relNode), blocks_(nblocks)
{
}

std::uint32_t SmgrRelation::os_file(std::uint32_t block) const
{
  return relNode_ * kSegmentsPerRelation + block / RELSEG_SIZE;
}

BufferManager::BufferManager(BufferPool& pool, OsPageCache& os, SyncRequestQueue& sync, Xlog& xlog,
                             const BufferCosts& costs, bool wal_log_hints)
    : pool_(pool), os_(os), sync_(sync), xlog_(xlog), costs_(costs), wal_log_hints_(wal_log_hints)
{
}

void BufferManager::add_relation(SmgrRelation& rel)
{
  relations_[rel.relNode()] = &rel;
}

SmgrRelation& BufferManager::relation(std::uint32_t relNode)
{
  const auto it = relations_.find(relNode);
  if (it == relations_.end()) throw std::logic_error("no relation with relfilenode " + std::to_string(relNode));
  return *it->second;
}

int BufferManager::ReadBufferExtended(BackendIo& io, SmgrRelation& rel, std::uint32_t block,
                                      BufferAccessStrategy* strategy)
{
  if (block >= rel.nblocks()) throw std::logic_error("block " + std::to_string(block) + " beyond " + rel.name());
  bool found       = false;
  const int buf_id = BufferAlloc(io, rel, block, strategy, &found);
  if (found) return buf_id;
  // smgrread: the page comes from the OS page cache, or from the device through it.
  const IoTimer timer(io.me.proc);
  os_.read(io.me.proc, rel.os_file(block), block % RELSEG_SIZE);
  BufferDesc& buf = pool_.GetBufferDescriptor(buf_id);
  buf.page        = rel.stored(block);
  buf.valid       = true;
  io.counters.reads++;
  io.counters.read_time += timer.seconds();
  return buf_id;
}

int BufferManager::BufferAlloc(BackendIo& io, SmgrRelation& rel, std::uint32_t block, BufferAccessStrategy* strategy,
                               bool* found)
{
  sim::Proc& proc = io.me.proc;
  const BufferTag tag{rel.relNode(), block};
  proc.work(costs_.buffer_lookup + costs_.buffer_pin);
  const int existing = pool_.BufTableLookup(tag);
  if (existing >= 0) {
    pool_.PinBuffer(existing, strategy);
    io.counters.hits++;
    *found = true;
    return existing;
  }
  *found = false;
  io.hint_io.on_buffer_alloc();
  for (;;) {
    proc.work(costs_.buffer_alloc);
    VictimSource from = VictimSource::FreeList;
    const int victim  = pool_.StrategyGetBuffer(strategy, &from);
    BufferDesc& buf   = pool_.GetBufferDescriptor(victim);
    // Pinned while it is written out, as PinBuffer_Locked does, so no one else takes it.
    buf.refcount++;
    if (buf.dirty && !clean_victim(io, victim, strategy)) {
      buf.refcount--;
      continue;
    }
    if (buf.tag_valid) {
      pool_.BufTableDelete(buf.tag);
      (from == VictimSource::Ring ? io.counters.reuses : io.counters.evictions)++;
    }
    pool_.BufTableInsert(tag, victim);
    buf.tag         = tag;
    buf.tag_valid   = true;
    buf.valid       = false;
    buf.dirty       = false;
    buf.hint_dirty  = false;
    buf.usage_count = 1;
    return victim;
  }
}

bool BufferManager::clean_victim(BackendIo& io, int buf_id, BufferAccessStrategy* strategy)
{
  BufferDesc& buf = pool_.GetBufferDescriptor(buf_id);
  // A bulk read would rather not wait for a WAL flush to reuse a ring buffer.
  if (strategy != nullptr && xlog_.XLogNeedsFlush(io.me, buf.page.lsn) &&
      BufferPool::StrategyRejectBuffer(strategy, buf_id)) {
    io.counters.rejected++;
    return false;
  }
  if (buf.hint_dirty && !io.hint_io.write_hint_dirty_buffer()) {
    // The page leaves shared_buffers without its hint bits ever reaching the file.
    io.counters.hint_writes_skipped++;
    return true;
  }
  if (buf.hint_dirty) io.counters.hint_writes++;
  FlushBuffer(io, buf);
  return true;
}

void BufferManager::FlushBuffer(BackendIo& io, BufferDesc& buf)
{
  sim::Proc& proc = io.me.proc;
  // The WAL up to the page's LSN must be on disk before the page.
  if (xlog_.XLogNeedsFlush(io.me, buf.page.lsn)) xlog_.XLogFlush(io.me, buf.page.lsn);
  if (buf.page.lsn > xlog_.flushed_lsn())
    throw std::logic_error("FlushBuffer: block " + std::to_string(buf.tag.blockNum) +
                           " would reach disk before its WAL");
  proc.work(costs_.flush_buffer);
  SmgrRelation& rel         = relation(buf.tag.relNode);
  const std::uint32_t block = buf.tag.blockNum;
  const IoTimer timer(proc);
  os_.write(proc, rel.os_file(block), block % RELSEG_SIZE);
  io.counters.write_time += timer.seconds();
  rel.stored(block) = buf.page;
  buf.dirty         = false;
  buf.hint_dirty    = false;
  io.counters.writes++;
  register_dirty_segment(io, rel, block);
}

void BufferManager::register_dirty_segment(BackendIo& io, SmgrRelation& rel, std::uint32_t block)
{
  if (sync_.ForwardSyncRequest(io.me.proc, rel.segment(block))) {
    io.counters.fsync_requests++;
    return;
  }
  // The queue is full and could not be compacted: fsync the segment here and now.
  const IoTimer timer(io.me.proc);
  os_.fsync(io.me.proc, rel.os_file(block));
  io.counters.fsyncs++;
  io.counters.fsync_time += timer.seconds();
}

void BufferManager::ReleaseBuffer(int buf_id)
{
  pool_.UnpinBuffer(buf_id);
}

void BufferManager::MarkBufferDirty(int buf_id)
{
  BufferDesc& buf = pool_.GetBufferDescriptor(buf_id);
  buf.dirty       = true;
  buf.hint_dirty  = false;
}

void BufferManager::MarkBufferDirtyHint(BackendIo& io, int buf_id)
{
  BufferDesc& buf = pool_.GetBufferDescriptor(buf_id);
  if (buf.dirty) return;
  if (wal_log_hints_ && xlog_.needs_image(buf.page.lsn))
    buf.page.lsn = xlog_.XLogInsert(io.me, XLogRecordData{kHintImageRecord, 1});
  buf.dirty      = true;
  buf.hint_dirty = true;
  io.counters.dirtied_by_hints++;
}

void BufferManager::load_through_ring(SmgrRelation& rel, BufferAccessStrategy& ring)
{
  for (std::uint32_t block = 0; block < rel.nblocks(); block++) {
    VictimSource from = VictimSource::FreeList;
    const int victim  = pool_.StrategyGetBuffer(&ring, &from);
    BufferDesc& buf   = pool_.GetBufferDescriptor(victim);
    if (buf.tag_valid) pool_.BufTableDelete(buf.tag);
    const BufferTag tag{rel.relNode(), block};
    pool_.BufTableInsert(tag, victim);
    buf.tag         = tag;
    buf.tag_valid   = true;
    buf.valid       = true;
    buf.dirty       = false;
    buf.hint_dirty  = false;
    buf.usage_count = 1;
    buf.page        = rel.stored(block);
  }
}

} // namespace pg
