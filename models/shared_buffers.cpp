/* shared_buffers for the pgbench tables: see shared_buffers.hpp. */
#include "models/shared_buffers.hpp"

#include "models/xlog.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace pg {

SharedBuffers::SharedBuffers(const Scenario& scenario, const WaitEvents& events, Xlog& xlog)
    : scenario_(scenario), ev_(events), xlog_(xlog),
      nbuffers_(static_cast<int>(scenario.settings.shared_buffers / BLCKSZ))
{
}

void SharedBuffers::add_relation(Relation& rel, bool primary_key)
{
  rel.set_relnode(static_cast<std::uint32_t>(sources_.size()));
  sources_.push_back(Source{&rel, false});
  if (primary_key) sources_.push_back(Source{&rel, true});
}

std::uint64_t SharedBuffers::total_pages() const
{
  return std::accumulate(sources_.begin(), sources_.end(), std::uint64_t{0},
                         [](std::uint64_t sum, const Source& s) { return sum + s.pages(); });
}

void SharedBuffers::start()
{
  if (!active() && total_pages() > static_cast<std::uint64_t>(nbuffers_)) activate();
}

void SharedBuffers::activate()
{
  pool_ = std::make_unique<BufferPool>(nbuffers_);
  io_done_.assign(static_cast<std::size_t>(nbuffers_), 0.0);
  preload();
}

// What a warmed-up server holds when the tables do not fit: the smaller relations whole (their
// pages are the hottest), and of the rest an even share of each, spread over the relation, as
// pgbench's uniform keys leave it. Pages pinned at that moment (a table outgrew shared_buffers
// during the run) go in first, with their pins; pages changed before stay dirty.
void SharedBuffers::preload()
{
  for (std::uint32_t relnode = 0; relnode < sources_.size(); relnode++) {
    const Source& s = sources_[relnode];
    for (std::uint32_t block = 0; !s.index && block < s.rel->nblocks(); block++)
      if (const HeapPage* page = s.rel->find_page(block); page != nullptr && page->pins > 0)
        load(BufferTag{relnode, block}, page->pins);
  }
  std::vector<std::uint32_t> order(sources_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return sources_[a].pages() < sources_[b].pages(); });
  std::uint64_t room = static_cast<std::uint64_t>(pool_->free_list_length());
  std::uint64_t left = total_pages();
  for (const std::uint32_t relnode : order) {
    const std::uint64_t pages = sources_[relnode].pages();
    const std::uint64_t take  = left <= room ? pages : room * pages / left;
    for (std::uint64_t i = 0; i < take && pool_->free_list_length() > 0; i++) {
      const BufferTag tag{relnode, static_cast<std::uint32_t>(i * pages / take)};
      if (pool_->BufTableLookup(tag) < 0) load(tag, 0);
    }
    room = static_cast<std::uint64_t>(pool_->free_list_length());
    left -= pages;
  }
  pool_->stats().reset();
  std::uint64_t loaded = 0; // not allocations the background writer should plan for
  pool_->StrategySyncStart(&loaded);
}

void SharedBuffers::load(BufferTag tag, int pins)
{
  VictimSource from{};
  const int buf_id = pool_->StrategyGetBuffer(nullptr, &from);
  BufferDesc& buf  = pool_->GetBufferDescriptor(buf_id);
  buf.tag          = tag;
  buf.tag_valid    = true;
  buf.valid        = true;
  buf.usage_count  = 1;
  buf.refcount     = pins;
  buf.page.lsn     = InvalidXLogRecPtr;
  pool_->BufTableInsert(tag, buf_id);
}

bool SharedBuffers::resident(const HeapPage& page) const
{
  return !active() || pool_->BufTableLookup(BufferTag{page.relnode, page.block}) >= 0;
}

void SharedBuffers::pin(Backend& me, const HeapPage& page)
{
  if (active()) ReadBuffer(me, BufferTag{page.relnode, page.block}, false);
}

void SharedBuffers::unpin(const HeapPage& page)
{
  if (active()) pool_->UnpinBuffer(pool_->BufTableLookup(BufferTag{page.relnode, page.block}));
}

void SharedBuffers::visit_leaf(Backend& me, const Relation& rel, std::uint32_t leaf)
{
  const std::uint32_t index = rel.relnode() + 1;
  if (!active() || index >= sources_.size() || sources_[index].rel != &rel || !sources_[index].index) return;
  pool_->UnpinBuffer(ReadBuffer(me, BufferTag{index, leaf}, false));
}

void SharedBuffers::extend(Backend& me, const Relation& rel, std::uint32_t block)
{
  if (!active() && total_pages() > static_cast<std::uint64_t>(nbuffers_)) activate();
  if (active()) pool_->UnpinBuffer(ReadBuffer(me, BufferTag{rel.relnode(), block}, true));
}

// ReadBuffer_common: the buffer comes back pinned. A hit pins first and then waits for a read
// another backend has under way (its BM_IO_IN_PROGRESS), so that nobody evicts it meanwhile; a
// miss takes a buffer and, unless the block is new, reads the page into it.
int SharedBuffers::ReadBuffer(Backend& me, BufferTag tag, bool is_new)
{
  const int found = pool_->BufTableLookup(tag);
  if (found >= 0) {
    stats_.hits++;
    pin_and_wait(me, found);
    return found;
  }
  bool raced       = false;
  const int buf_id = BufferAlloc(me, tag, &raced);
  if (raced) return buf_id;
  pool_->PinBuffer(buf_id, nullptr);
  if (is_new) {
    stats_.extends++;
    return buf_id;
  }
  const auto& os = scenario_.hardware.os;
  me.proc.syscall(os.pread + os.pread_per_kb * BLCKSZ / 1024.0, ev_.IoDataFileRead);
  io_done_[static_cast<std::size_t>(buf_id)] = me.proc.local_time();
  stats_.reads++;
  return buf_id;
}

void SharedBuffers::pin_and_wait(Backend& me, int buf_id)
{
  pool_->PinBuffer(buf_id, nullptr);
  const double done = io_done_[static_cast<std::size_t>(buf_id)];
  if (done <= me.proc.local_time()) return;
  me.proc.flush();
  me.proc.block_until(done, ev_.IoDataFileRead);
  me.proc.flush();
}

// PostgreSQL raises the same ERROR when every buffer is pinned: too few for the clients.
int SharedBuffers::StrategyGetBuffer()
{
  VictimSource from{};
  try {
    return pool_->StrategyGetBuffer(nullptr, &from);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + ": all " + std::to_string(nbuffers_) +
                             " buffers of shared_buffers are pinned by the " +
                             std::to_string(scenario_.pgbench.clients) +
                             " clients' backends, as PostgreSQL would find them; give shared_buffers more");
  }
}

// BufferAlloc: the clock sweep's victim, written out first if dirty. Writing takes time, and
// meanwhile another backend may have used the victim again, or read our block into a buffer of
// its own: then the victim is left alone, as bufmgr.c leaves it.
int SharedBuffers::BufferAlloc(Backend& me, BufferTag tag, bool* raced)
{
  me.proc.work(scenario_.costs.buffer_alloc);
  for (;;) {
    const std::uint64_t ticks = pool_->stats().clock_ticks;
    const int victim          = StrategyGetBuffer();
    for (std::uint64_t t = ticks; t < pool_->stats().clock_ticks; t++) clock_hand_.rmw(me.proc);
    stats_.clock_ticks += pool_->stats().clock_ticks - ticks;
    BufferDesc& buf = pool_->GetBufferDescriptor(victim);
    if (buf.tag_valid && is_dirty(buf)) {
      buf.refcount++; // PinBuffer_Locked: nobody else takes it while it is written
      FlushBuffer(me, buf);
      buf.refcount--;
      stats_.writes++;
      if (buf.refcount > 0 || buf.usage_count > 0) continue;
    }
    const int existing = pool_->BufTableLookup(tag);
    if (existing >= 0) {
      stats_.hits++;
      pin_and_wait(me, existing);
      *raced = true;
      return existing;
    }
    if (buf.tag_valid) {
      stats_.evictions++;
      pool_->BufTableDelete(buf.tag);
    }
    buf.tag       = tag;
    buf.tag_valid = true;
    buf.valid     = true;
    mark_clean(buf); // as read: the page cache holds what was last written
    pool_->BufTableInsert(tag, victim);
    io_done_[static_cast<std::size_t>(victim)] = me.proc.local_time();
    return victim;
  }
}

// BgBufferSync (bufmgr.c, PostgreSQL 15), without its density estimate of reusable buffers: the
// allocation rate is smoothed (at once upwards, over 16 rounds downwards) and scaled by
// bgwriter_lru_multiplier into the buffers the next round will need; the writer walks ahead of
// the clock hand, never lapping it, counting unpinned buffers with a zero usage count as reusable
// and writing the dirty ones, until it found that many or wrote bgwriter_lru_maxpages.
int SharedBuffers::BgBufferSync(Backend& bgwriter)
{
  const Settings& g = scenario_.settings;
  if (!active() || g.bgwriter_lru_maxpages <= 0) return 0;
  std::uint64_t recent_alloc = 0;
  pool_->StrategySyncStart(&recent_alloc);
  const auto recent          = static_cast<double>(recent_alloc);
  smoothed_alloc_            = recent >= smoothed_alloc_ ? recent : smoothed_alloc_ + (recent - smoothed_alloc_) / 16;
  const double upcoming      = std::max(1.0, smoothed_alloc_ * g.bgwriter_lru_multiplier);
  const std::uint64_t hand   = pool_->stats().clock_ticks;
  next_to_clean_             = std::max(next_to_clean_, hand);
  const std::uint64_t lapped = hand + static_cast<std::uint64_t>(nbuffers_);
  int written                = 0;
  double reusable            = 0;
  while (next_to_clean_ < lapped && reusable < upcoming) {
    BufferDesc& buf = pool_->GetBufferDescriptor(static_cast<int>(next_to_clean_++ % nbuffers_));
    bgwriter.proc.work(scenario_.costs.buffer_pin); // SyncOneBuffer: the header's state
    if (buf.refcount > 0 || buf.usage_count > 0) continue;
    reusable++;
    if (!buf.tag_valid || !is_dirty(buf)) continue;
    buf.refcount++;
    FlushBuffer(bgwriter, buf);
    buf.refcount--;
    stats_.bgwriter_writes++;
    if (++written >= g.bgwriter_lru_maxpages) break;
  }
  return written;
}

// FlushBuffer: WAL before data (XLogFlush up to the page's LSN), then write() into the page cache.
void SharedBuffers::FlushBuffer(Backend& me, BufferDesc& buf)
{
  const XLogRecPtr lsn = page_lsn(buf.tag);
  if (lsn != InvalidXLogRecPtr && xlog_.XLogNeedsFlush(me, lsn)) {
    stats_.wal_flushes++;
    xlog_.XLogFlush(me, lsn);
  }
  me.proc.work(scenario_.costs.flush_buffer);
  const auto& os = scenario_.hardware.os;
  me.proc.syscall(os.pwrite + os.pwrite_per_kb * BLCKSZ / 1024.0, ev_.IoDataFileWrite);
  mark_clean(buf);
}

XLogRecPtr SharedBuffers::page_lsn(BufferTag tag) const
{
  const Source& s = source(tag.relNode);
  if (s.index) return s.rel->index_leaf_lsn(tag.blockNum);
  const HeapPage* page = s.rel->find_page(tag.blockNum);
  return page == nullptr ? InvalidXLogRecPtr : page->lsn;
}

// A heap page changed since it was last written carries MarkBufferDirty's flag; a leaf page, a
// newer LSN (an unlogged index's leaves have none, and never count as dirty).
bool SharedBuffers::is_dirty(const BufferDesc& buf) const
{
  const Source& s = source(buf.tag.relNode);
  if (s.index) return s.rel->index_leaf_lsn(buf.tag.blockNum) != buf.page.lsn;
  const HeapPage* page = s.rel->find_page(buf.tag.blockNum);
  return page != nullptr && page->dirty;
}

void SharedBuffers::mark_clean(BufferDesc& buf)
{
  const Source& s = source(buf.tag.relNode);
  if (s.index) {
    buf.page.lsn = s.rel->index_leaf_lsn(buf.tag.blockNum);
  } else if (s.rel->find_page(buf.tag.blockNum) != nullptr) {
    s.rel->page(buf.tag.blockNum).dirty = false;
  }
}

} // namespace pg
