/* Writing and flushing WAL, following xlog.c of PostgreSQL 15: WaitXLogInsertionsToFinish,
 * XLogFlush (with commit_delay and natural group commit through LWLockAcquireOrWait), XLogWrite,
 * issue_xlog_fsync, XLogNeedsFlush, XLogSetAsyncXactLSN and XLogBackgroundFlush. The wake-up
 * rule of XLogSetAsyncXactLSN and the flush rule of XLogBackgroundFlush are policies, since
 * they changed between 9.2 (commit 4de82f7d7c50a8), 9.6 (7975c5e0a) and the 2017 proposal. */
#include "models/xlog.hpp"

#include "models/pgsleep.hpp"
#include "models/shmem.hpp"

#include "sim/clock.hpp"

#include <algorithm>

namespace pg {

namespace {
double now()
{
  return sim::now();
}
} // namespace

// Waits until every insertion into WAL below upto has been copied into the WAL buffers: a
// holder of an insertion lock that has not advertised progress past upto is waited for.
XLogRecPtr Xlog::WaitXLogInsertionsToFinish(Backend& me, XLogRecPtr upto)
{
  const double start = me.proc.local_time();
  spin(insertpos_lck_, me);
  const XLogRecPtr reservedUpto = insert_lsn();
  upto                          = std::min(upto, reservedUpto);
  XLogRecPtr finishedUpto       = reservedUpto;
  for (auto& lock : insert_locks_) {
    me.proc.work(costs_.xlog_insert_lock_scan);
    XLogRecPtr insertingat = InvalidXLogRecPtr;
    do {
      if (lock.wait_for_var(me.proc, insertingat, &insertingat, me.proc.cpu().params().line_parallelism)) {
        insertingat = InvalidXLogRecPtr; // the lock is free: no insertion in progress
        break;
      }
    } while (insertingat < upto);
    if (insertingat != InvalidXLogRecPtr && insertingat < finishedUpto) finishedUpto = insertingat;
  }
  stats_.wait_for_insertions_time += me.proc.local_time() - start;
  stats_.wait_for_insertions_calls++;
  return finishedUpto;
}

void Xlog::XLogFlush(Backend& me, XLogRecPtr record)
{
  if (record <= me.LogwrtResult.Flush) return;
  XLogRecPtr WriteRqstPtr = record;
  for (;;) {
    read_shared_result(me);
    WriteRqstPtr = std::max(WriteRqstPtr, LogwrtRqstWrite_);
    if (record <= me.LogwrtResult.Flush) break;
    XLogRecPtr insertpos = WaitXLogInsertionsToFinish(me, WriteRqstPtr);
    // Whoever holds WALWriteLock is probably flushing our record too: wait for it to finish and
    // look again, instead of queueing for the lock (natural group commit).
    if (!WALWriteLock_.acquire_or_wait(me.proc, sim::LWLockMode::Exclusive)) continue;
    me.LogwrtResult = shared_result_;
    if (record <= me.LogwrtResult.Flush) {
      WALWriteLock_.release(me.proc);
      break;
    }
    if (scenario_.settings.commit_delay > 0 && scenario_.settings.fsync &&
        MinimumActiveBackends(me, scenario_.settings.commit_siblings)) {
      pg_usleep(me, scenario_.hardware.os, scenario_.settings.commit_delay, ev_.CommitDelay);
      insertpos = WaitXLogInsertionsToFinish(me, insertpos);
    }
    XLogWrite(me, insertpos, insertpos, false);
    WALWriteLock_.release(me.proc);
    break;
  }
}

bool Xlog::MinimumActiveBackends(const Backend& me, int min) const
{
  return active_backends_ && active_backends_(me, min);
}

void Xlog::XLogWrite(Backend& me, XLogRecPtr write, XLogRecPtr flush, bool flexible)
{
  XLogRecPtr from = me.LogwrtResult.Write;
  if (flexible) write = std::max(from, page_start(write)); // only complete pages
  if (write > from) {
    // One write() per run of pages that is contiguous in the buffer ring and in one segment.
    const auto seg        = static_cast<XLogRecPtr>(scenario_.settings.wal_segment_size);
    const auto ring       = static_cast<XLogRecPtr>(wal_buffer_pages_) * XLOG_BLCKSZ;
    const XLogRecPtr last = write - 1;
    const auto writes     = 1 + (last / seg - from / seg) + (last / ring - page_start(from) / ring);
    const double bytes    = static_cast<double>(page_start(last) + XLOG_BLCKSZ - page_start(from));
    // The kernel copies from the caller's mapping of the WAL buffers, faulting in what it lacks.
    const double faults =
        wal_buffer_faults(me, page_start(from), page_start(last) + XLOG_BLCKSZ, sim::PageAccess::Read);
    const double seconds = static_cast<double>(writes) * scenario_.hardware.os.pwrite +
                           scenario_.hardware.os.pwrite_per_kb * bytes / 1024.0 + faults;
    // pg_stat_wal's wal_write_time is wall time: a write preempted on its way out counts whole.
    stats_.wal_write_time += me.proc.timed_syscall(seconds, ev_.IoWALWrite);
    stats_.wal_write += writes;
    me.LogwrtResult.Write = write;
    // Finishing a segment syncs it before moving on to the next file.
    if (last / seg != from / seg) {
      issue_xlog_fsync(me);
      me.LogwrtResult.Flush = std::max(me.LogwrtResult.Flush, page_start(last) / seg * seg);
    }
  }
  if (flush > me.LogwrtResult.Flush && me.LogwrtResult.Write > me.LogwrtResult.Flush) {
    issue_xlog_fsync(me);
    me.LogwrtResult.Flush = me.LogwrtResult.Write;
  }
  spin(info_lck_, me);
  shared_result_.Write = std::max(shared_result_.Write, me.LogwrtResult.Write);
  shared_result_.Flush = std::max(shared_result_.Flush, me.LogwrtResult.Flush);
  LogwrtRqstWrite_     = std::max(LogwrtRqstWrite_, me.LogwrtResult.Write);
  me.LogwrtResult      = shared_result_;
}

// fdatasync(), as ext4_sync_file() does it (Linux 5.x-6.x): file_write_and_wait_range() writes the
// WAL file's dirty pages and sleeps until the device has them; only then does
// blkdev_issue_flush() send the cache flush and sleep again. Each of the two sleeps ends with a
// wake-up that needs a CPU, so on a busy machine the call waits for one twice.
void Xlog::issue_xlog_fsync(Backend& me)
{
  if (!scenario_.settings.fsync) return;
  const XLogRecPtr written = me.LogwrtResult.Write;
  const double bytes       = written > synced_upto_
                                 ? static_cast<double>(page_start(written - 1) + XLOG_BLCKSZ - page_start(synced_upto_))
                                 : 0.0;
  const double start       = me.proc.local_time();
  me.proc.syscall(scenario_.hardware.os.fdatasync_cpu, ev_.IoWALSync);
  // The device sees the request once the kernel's part of fdatasync() has run (flushing first
  // also keeps submissions to the device in time order, which it requires).
  me.proc.flush();
  if (bytes > 0) me.proc.await_io(device_.write(now(), bytes), ev_.IoWALSync);
  if (kblockd_ != nullptr)
    kblockd_->flush(me.proc, ev_.IoWALSync);
  else
    me.proc.await_io(device_.flush(now()), ev_.IoWALSync);
  synced_upto_ = std::max(synced_upto_, written);
  stats_.wal_sync++;
  stats_.wal_sync_time += me.proc.local_time() - start;
  stats_.wal_sync_hist.add(me.proc.local_time() - start);
}

bool Xlog::XLogNeedsFlush(Backend& me, XLogRecPtr record)
{
  if (record <= me.LogwrtResult.Flush) return false;
  read_shared_result(me);
  return record > me.LogwrtResult.Flush;
}

void Xlog::SetWalWriterSleeping(Backend& me, bool sleeping)
{
  spin(info_lck_, me);
  WalWriterSleeping_ = sleeping;
}

void Xlog::XLogSetAsyncXactLSN(Backend& me, XLogRecPtr asyncXactLSN)
{
  spin(info_lck_, me);
  me.LogwrtResult     = shared_result_;
  const bool sleeping = WalWriterSleeping_;
  asyncXactLSN_       = std::max(asyncXactLSN_, asyncXactLSN);

  const XLogRecPtr page = page_start(asyncXactLSN); // back off to the last completed page
  bool wake             = sleeping;
  switch (scenario_.policies.walwriter_wakeup) {
  case WalWriterWakeup::Always:
    wake = true;
    break;
  case WalWriterWakeup::Hibernating:
    break;
  case WalWriterWakeup::UnflushedPage:
    wake = wake || page > me.LogwrtResult.Flush;
    break;
  case WalWriterWakeup::UnwrittenPage: {
    const double unflushed = static_cast<double>(page_start(page) - page_start(me.LogwrtResult.Flush));
    const double after     = scenario_.settings.wal_writer_flush_after;
    wake                   = wake || page > me.LogwrtResult.Write || (after > 0 && unflushed >= after);
    break;
  }
  }
  if (wake && walwriter_latch_ != nullptr && walwriter_latch_->set(me.proc)) stats_.walwriter_wakeups++;
}

bool Xlog::XLogBackgroundFlush(Backend& me)
{
  return scenario_.policies.walwriter_flush == WalWriterFlush::AllWritten ? XLogBackgroundFlushAllWritten(me)
                                                                          : XLogBackgroundFlushDelayed(me);
}

// 9.2-9.5: write and flush every complete page; with none, flush up to the latest async commit.
bool Xlog::XLogBackgroundFlushAllWritten(Backend& me)
{
  read_shared_result(me);
  XLogRecPtr WriteRqstPtr = page_start(LogwrtRqstWrite_);
  bool flexible           = true;
  if (WriteRqstPtr <= me.LogwrtResult.Flush) {
    WriteRqstPtr = asyncXactLSN_;
    flexible     = false;
  }
  if (WriteRqstPtr <= me.LogwrtResult.Flush) return false;
  WaitXLogInsertionsToFinish(me, WriteRqstPtr);
  WALWriteLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  me.LogwrtResult = shared_result_;
  if (WriteRqstPtr > me.LogwrtResult.Flush) XLogWrite(me, WriteRqstPtr, WriteRqstPtr, flexible);
  WALWriteLock_.release(me.proc);
  return true;
}

// 9.6+: write complete pages each cycle, but flush only every wal_writer_delay or once
// wal_writer_flush_after bytes are unflushed.
bool Xlog::XLogBackgroundFlushDelayed(Backend& me)
{
  read_shared_result(me);
  XLogRecPtr write = page_start(LogwrtRqstWrite_);
  bool flexible    = true;
  if (write <= me.LogwrtResult.Flush) {
    write    = asyncXactLSN_;
    flexible = false;
  }
  if (write <= me.LogwrtResult.Flush) return false;

  const double t          = now();
  const double flushbytes = static_cast<double>(page_start(write) - page_start(me.LogwrtResult.Flush));
  const double after      = scenario_.settings.wal_writer_flush_after;
  XLogRecPtr flush        = InvalidXLogRecPtr;
  if (after <= 0 || lastflush_ < 0 || t - lastflush_ >= scenario_.settings.wal_writer_delay || flushbytes >= after) {
    flush      = write;
    lastflush_ = t;
  }
  WaitXLogInsertionsToFinish(me, write);
  WALWriteLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  me.LogwrtResult = shared_result_;
  if (write > me.LogwrtResult.Write || flush > me.LogwrtResult.Flush) XLogWrite(me, write, flush, flexible);
  WALWriteLock_.release(me.proc);
  return true;
}

} // namespace pg
