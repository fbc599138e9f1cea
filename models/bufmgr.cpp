/* The parts of bufmgr.c (PostgreSQL 15) that heap access needs: pins on the buffer header's
 * state word, and marking a buffer dirty for a hint bit (MarkBufferDirtyHint), which with
 * wal_log_hints needs a full-page image on the page's first change after a checkpoint. */
#include "models/heapam.hpp"
#include "models/shared_buffers.hpp"
#include "models/shmem.hpp"

namespace pg {

void Heapam::PinBuffer(Backend& me, HeapPage& page)
{
  if (buffers_ != nullptr) buffers_->pin(me, page);
  if (page.buffer < 0) page.buffer = next_buffer_++;
  shmem::pin_buffer(me, page.buffer);
  page.header.rmw(me.proc);
  me.proc.work(costs_.buffer_pin);
  page.pins++;
}

// A B-tree descent pins its leaf like any buffer; only the leaf, because the few upper pages a
// backend faults in once are nothing against its thousands of transactions.
void Heapam::visit_leaf(Backend& me, Relation& rel, std::uint32_t leaf)
{
  if (buffers_ != nullptr) buffers_->visit_leaf(me, rel, leaf);
  int& buffer = rel.index_leaf_buffer(leaf);
  if (buffer < 0) buffer = next_buffer_++;
  shmem::pin_buffer(me, buffer);
}

void Heapam::UnpinBuffer(Backend& me, HeapPage& page)
{
  page.header.rmw(me.proc);
  page.pins--;
  if (buffers_ != nullptr) buffers_->unpin(page);
}

// The buffer lookup is paid either way; only a backend's first pin touches the shared state word.
void Heapam::ReadBuffer(Backend& me, HeapPage& page, const HeapPage* held)
{
  if (&page == held)
    me.proc.work(costs_.buffer_pin);
  else
    PinBuffer(me, page);
}

void Heapam::ReleaseBuffer(Backend& me, HeapPage& page, const HeapPage* held)
{
  if (&page != held) UnpinBuffer(me, page);
}

bool Heapam::needs_image(const HeapPage& page) const
{
  return xlog_.needs_image(page.lsn);
}

void Heapam::MarkBufferDirtyHint(Backend& me, Relation& rel, HeapPage& page)
{
  // The unlocked test of BM_DIRTY | BM_JUST_DIRTIED on the state word, which every pin rewrites.
  page.header.read(me.proc);
  if (page.dirty) return;
  if (scenario_.settings.wal_log_hints && rel.permanent() && needs_image(page)) {
    // XLogSaveBufferForHint: a record carrying only the page's image.
    page.lsn = xlog_.XLogInsert(me, XLogRecordData{24 + 2 + 20 + 5 + BLCKSZ - page.free_bytes, 1});
  }
  page.header.rmw(me.proc);
  page.dirty = true;
  hint_stats_.dirtied_page++;
}

// With wal_log_hints a hint may be WAL-logged while only a share lock protects the page, so the
// LSN is read under the buffer header's spinlock (LockBufHdr); otherwise a plain read.
XLogRecPtr Heapam::BufferGetLSNAtomic(Backend& me, HeapPage& page)
{
  if (scenario_.settings.wal_log_hints) page.header.rmw(me.proc);
  return page.lsn;
}

} // namespace pg
