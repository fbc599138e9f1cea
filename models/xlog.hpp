/* The WAL: insertion into WAL buffers and writing/flushing them, following
 * src/backend/access/transam/xlog.c of PostgreSQL 15 (XLogInsertRecord, WALInsertLockAcquire,
 * ReserveXLogInsertLocation, GetXLogBuffer, WaitXLogInsertionsToFinish, XLogFlush, XLogWrite,
 * XLogBackgroundFlush, XLogSetAsyncXactLSN). Variants of older versions are selected by policies.
 */
#pragma once

#include "models/backend.hpp"
#include "models/kblockd.hpp"
#include "models/scenario.hpp"
#include "models/types.hpp"
#include "models/wait_event.hpp"
#include "sim/latch.hpp"
#include "sim/lwlock.hpp"
#include "sim/nvme.hpp"
#include "sim/spinlock.hpp"
#include "sim/stats.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace pg {

/// pg_stat_wal, plus the two timings of the NUM_XLOGINSERT_LOCKS thread.
struct WalStats {
  std::uint64_t wal_records      = 0;
  std::uint64_t wal_fpi          = 0;
  double wal_bytes               = 0;
  std::uint64_t wal_buffers_full = 0;
  std::uint64_t wal_write        = 0;
  std::uint64_t wal_sync         = 0;
  double wal_write_time          = 0;          // seconds
  double wal_sync_time           = 0;          // seconds
  sim::Histogram wal_sync_hist;                // each fdatasync()'s share of wal_sync_time
  double wait_for_insertions_time         = 0; // seconds inside WaitXLogInsertionsToFinish
  std::uint64_t wait_for_insertions_calls = 0;
  std::uint64_t walwriter_wakeups         = 0; // SetLatch calls that had to signal the WAL writer

  void reset() { *this = WalStats(); }
};

/// What a caller of XLogInsert hands over: a record's size and how many full-page images it carries.
struct XLogRecordData {
  double size = 0; // bytes, record header and images included
  int fpi     = 0;
};

class Xlog {
public:
  Xlog(const Scenario& scenario, const WaitEvents& events, sim::Nvme& device);

  /// XLogInsert: assembles the record (outside any lock) and inserts it; returns its end LSN.
  XLogRecPtr XLogInsert(Backend& me, const XLogRecordData& rec);
  void XLogFlush(Backend& me, XLogRecPtr record);
  bool XLogNeedsFlush(Backend& me, XLogRecPtr record);
  void XLogSetAsyncXactLSN(Backend& me, XLogRecPtr asyncXactLSN);
  /// One background flush by the WAL writer; true when there was something to do.
  bool XLogBackgroundFlush(Backend& me);
  /// AdvanceXLInsertBuffer(InvalidXLogRecPtr, opportunistic): the WAL writer initialises free buffers.
  void AdvanceXLInsertBufferOpportunistic(Backend& me);

  /// MinimumActiveBackends(n) of procarray.c, for commit_siblings: other backends than `me`.
  void set_active_backends(std::function<bool(const Backend&, int)> fn) { active_backends_ = std::move(fn); }
  /// ProcGlobal->walwriterLatch and XLogCtl->WalWriterSleeping.
  void set_walwriter(sim::Latch* latch) { walwriter_latch_ = latch; }
  /// fdatasync()'s cache flush goes to the device through this kernel thread (nullptr: directly).
  void set_kblockd(Kblockd* kblockd) { kblockd_ = kblockd; }
  void SetWalWriterSleeping(Backend& me, bool sleeping);

  /// The latest LSN inserted (for checks and reports).
  XLogRecPtr insert_lsn() const;
  XLogRecPtr flushed_lsn() const { return shared_result_.Flush; }
  XLogRecPtr written_lsn() const { return shared_result_.Write; }
  /// Whether a page last changed at page_lsn needs a full-page image with its next change: it
  /// was not changed since the redo pointer of the latest checkpoint (full_page_writes).
  bool needs_image(XLogRecPtr page_lsn) const
  {
    return scenario_.settings.full_page_writes && redo_valid_ && page_lsn <= redo_ptr_;
  }
  /// A checkpoint starts: its redo pointer is the current insert position.
  XLogRecPtr start_checkpoint(Backend& me);

  WalStats& stats() { return stats_; }
  std::vector<sim::LWLock>& insert_locks() { return insert_locks_; }
  sim::LWLock& wal_write_lock() { return WALWriteLock_; }
  sim::LWLock& wal_buf_mapping_lock() { return WALBufMappingLock_; }
  /// Acquisitions of XLogCtl's spinlocks and the time spent waiting for them.
  const sim::LWLockStats& insertpos_stats() const { return insertpos_lck_.stats(); }
  const sim::LWLockStats& info_lck_stats() const { return info_lck_.stats(); }
  void reset_stats();

  /// Checks flushed <= written <= inserted; throws std::logic_error when violated.
  void check_invariants() const;

private:
  XLogRecPtr XLogInsertRecord(Backend& me, const XLogRecordData& rec);
  void WALInsertLockAcquire(Backend& me);
  void WALInsertLockRelease(Backend& me);
  void ReserveXLogInsertLocation(Backend& me, std::uint64_t size, XLogRecPtr* start, XLogRecPtr* end);
  void CopyXLogRecordToWAL(Backend& me, XLogRecPtr start, XLogRecPtr end);
  /// What a backend's page faults cost as it touches the WAL buffers holding [start, end).
  double wal_buffer_faults(Backend& me, XLogRecPtr start, XLogRecPtr end, sim::PageAccess access);
  double copy_line_transfers(Backend& me, XLogRecPtr start, XLogRecPtr end);
  int zeroed_by(XLogRecPtr lsn) const;
  void init_page(Backend& me);
  void AdvanceXLInsertBuffer(Backend& me, XLogRecPtr upto);
  XLogRecPtr WaitXLogInsertionsToFinish(Backend& me, XLogRecPtr upto);
  void XLogWrite(Backend& me, XLogRecPtr write, XLogRecPtr flush, bool flexible);
  void issue_xlog_fsync(Backend& me);
  void spin(sim::Spinlock& lock, Backend& me);
  void read_shared_result(Backend& me);
  bool XLogBackgroundFlushAllWritten(Backend& me);
  bool XLogBackgroundFlushDelayed(Backend& me);
  bool MinimumActiveBackends(const Backend& me, int min) const;

  const Scenario& scenario_;
  const Costs& costs_;
  const WaitEvents& ev_;
  sim::Nvme& device_;
  Kblockd* kblockd_ = nullptr;
  const double wal_buffer_pages_;

  // Insertion: XLogCtlInsert.
  sim::Spinlock insertpos_lck_;
  std::uint64_t CurrBytePos_ = 0;
  std::vector<sim::LWLock> insert_locks_;

  // XLogCtl fields under info_lck.
  sim::Spinlock info_lck_;
  XLogRecPtr LogwrtRqstWrite_ = InvalidXLogRecPtr;
  XLogwrtResult shared_result_;
  XLogRecPtr asyncXactLSN_     = InvalidXLogRecPtr;
  bool WalWriterSleeping_      = false;
  sim::Latch* walwriter_latch_ = nullptr;
  std::function<bool(const Backend&, int)> active_backends_;

  sim::LWLock WALWriteLock_;
  sim::LWLock WALBufMappingLock_;
  XLogRecPtr InitializedUpTo_ = 0;
  std::vector<std::int16_t> page_zeroed_by_; // by WAL buffer: the CPU slot that zeroed its page
  XLogRecPtr last_insert_end_ = 0;           // the latest record copied, and by which CPU slot
  int last_insert_slot_       = -1;

  // The WAL file in the OS page cache: written but not yet synced.
  XLogRecPtr synced_upto_ = 0;
  XLogRecPtr redo_ptr_    = 0;
  bool redo_valid_        = false;
  double lastflush_       = -1; // XLogBackgroundFlush's static lastflush

  WalStats stats_;
};

/// Byte position (usable bytes, page headers excluded) to LSN, as XLogBytePosToRecPtr does.
XLogRecPtr XLogBytePosToRecPtr(std::uint64_t bytepos);
XLogRecPtr XLogBytePosToEndRecPtr(std::uint64_t bytepos);

} // namespace pg
