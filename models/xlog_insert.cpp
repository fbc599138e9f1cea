/* Inserting WAL records into the WAL buffers, following xlog.c of PostgreSQL 15:
 * XLogInsertRecord, WALInsertLockAcquire/Release, ReserveXLogInsertLocation,
 * CopyXLogRecordToWAL/GetXLogBuffer and AdvanceXLInsertBuffer. */
#include "models/xlog.hpp"

#include "models/shmem.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pg {

namespace {
constexpr std::uint64_t SizeOfXLogShortPHD = 24;
constexpr std::uint64_t UsableBytesInPage  = XLOG_BLCKSZ - SizeOfXLogShortPHD;

std::uint64_t maxalign(double bytes)
{
  const auto b = static_cast<std::uint64_t>(bytes + 0.5);
  return (b + 7) & ~std::uint64_t{7};
}

double wal_buffer_pages(const Settings& s)
{
  // XLOGChooseNumBuffers: -1 means 1/32 of shared_buffers, at least 64kB, at most a segment.
  double bytes = s.wal_buffers;
  if (bytes < 0) bytes = std::clamp(s.shared_buffers / 32, 64.0 * 1024, s.wal_segment_size);
  return std::max(4.0, std::floor(bytes / XLOG_BLCKSZ));
}
} // namespace

XLogRecPtr XLogBytePosToRecPtr(std::uint64_t bytepos)
{
  return bytepos / UsableBytesInPage * XLOG_BLCKSZ + SizeOfXLogShortPHD + bytepos % UsableBytesInPage;
}

XLogRecPtr XLogBytePosToEndRecPtr(std::uint64_t bytepos)
{
  const std::uint64_t left = bytepos % UsableBytesInPage;
  const std::uint64_t full = bytepos / UsableBytesInPage * XLOG_BLCKSZ;
  return left == 0 ? full : full + SizeOfXLogShortPHD + left;
}

Xlog::Xlog(const Scenario& scenario, const WaitEvents& events, sim::Nvme& device)
    : scenario_(scenario), costs_(scenario.costs), ev_(events), device_(device),
      wal_buffer_pages_(wal_buffer_pages(scenario.settings)), insertpos_lck_(scenario.policies.lwlock.spin_delay_after),
      info_lck_(scenario.policies.lwlock.spin_delay_after),
      WALWriteLock_("WALWriteLock", events.WALWriteLock, scenario.policies.lwlock),
      WALBufMappingLock_("WALBufMappingLock", events.WALBufMapping, scenario.policies.lwlock)
{
  page_zeroed_by_.assign(static_cast<std::size_t>(wal_buffer_pages_), -1);
  insert_locks_.reserve(static_cast<std::size_t>(scenario.settings.num_xloginsert_locks));
  for (int i = 0; i < scenario.settings.num_xloginsert_locks; i++)
    insert_locks_.emplace_back("WALInsertLock " + std::to_string(i), events.WALInsert, scenario.policies.lwlock);
}

XLogRecPtr Xlog::insert_lsn() const
{
  return XLogBytePosToEndRecPtr(CurrBytePos_);
}

XLogRecPtr Xlog::XLogInsert(Backend& me, const XLogRecordData& rec)
{
  // XLogRecordAssemble and the CRC run before any lock is taken.
  me.proc.work(costs_.xlog_assemble + costs_.xlog_crc_per_kb * rec.size / 1024.0);
  return XLogInsertRecord(me, rec);
}

XLogRecPtr Xlog::XLogInsertRecord(Backend& me, const XLogRecordData& rec)
{
  const std::uint64_t size = maxalign(rec.size);
  XLogRecPtr StartPos      = InvalidXLogRecPtr;
  XLogRecPtr EndPos        = InvalidXLogRecPtr;

  WALInsertLockAcquire(me);
  ReserveXLogInsertLocation(me, size, &StartPos, &EndPos);
  CopyXLogRecordToWAL(me, StartPos, EndPos);
  WALInsertLockRelease(me);

  // Crossing a page boundary advances the global write request to include the new page(s).
  if (StartPos / XLOG_BLCKSZ != EndPos / XLOG_BLCKSZ) {
    spin(info_lck_, me);
    LogwrtRqstWrite_ = std::max(LogwrtRqstWrite_, EndPos);
    me.LogwrtResult  = shared_result_;
  }
  me.XactLastRecEnd = EndPos;
  stats_.wal_records++;
  stats_.wal_fpi += static_cast<std::uint64_t>(rec.fpi);
  stats_.wal_bytes += static_cast<double>(size);
  return EndPos;
}

// Try the lock used last time; if it had to be waited for, move on to the next one, so that
// inserters spread over the locks (PostgreSQL 9.4+).
void Xlog::WALInsertLockAcquire(Backend& me)
{
  const int n = static_cast<int>(insert_locks_.size());
  if (me.lockToTry == -1) me.lockToTry = me.pgprocno % n;
  me.MyLockNo = me.lockToTry;
  if (!insert_locks_[static_cast<std::size_t>(me.MyLockNo)].acquire(me.proc, sim::LWLockMode::Exclusive))
    me.lockToTry = (me.lockToTry + 1) % n;
}

void Xlog::WALInsertLockRelease(Backend& me)
{
  insert_locks_[static_cast<std::size_t>(me.MyLockNo)].release_clear_var(me.proc, InvalidXLogRecPtr);
}

void Xlog::ReserveXLogInsertLocation(Backend& me, std::uint64_t size, XLogRecPtr* start, XLogRecPtr* end)
{
  spin(insertpos_lck_, me);
  const std::uint64_t startbytepos = CurrBytePos_;
  CurrBytePos_ += size;
  *start = XLogBytePosToRecPtr(startbytepos);
  *end   = XLogBytePosToEndRecPtr(startbytepos + size);
}

void Xlog::CopyXLogRecordToWAL(Backend& me, XLogRecPtr start, XLogRecPtr end)
{
  // GetXLogBuffer for each page the record touches: a page not yet initialised in the WAL
  // buffers must be prepared first, which may mean writing out the page it replaces.
  for (XLogRecPtr page = page_start(start); page < end; page += XLOG_BLCKSZ) {
    if (page + XLOG_BLCKSZ <= InitializedUpTo_) continue;
    // Advertise our progress so that WaitXLogInsertionsToFinish does not wait for us.
    insert_locks_[static_cast<std::size_t>(me.MyLockNo)].update_var(me.proc, std::max(start, page));
    AdvanceXLInsertBuffer(me, page);
  }
  me.proc.work(costs_.xlog_copy_per_kb * static_cast<double>(end - start) / 1024.0);
  me.proc.stall(copy_line_transfers(me, start, end));
  me.proc.stall(wal_buffer_faults(me, start, end, sim::PageAccess::Write));
}

double Xlog::wal_buffer_faults(Backend& me, XLogRecPtr start, XLogRecPtr end, sim::PageAccess access)
{
  if (!me.page_table) return 0;
  const auto pages = static_cast<std::uint64_t>(wal_buffer_pages_);
  double seconds   = 0;
  for (XLogRecPtr from = start; from < end; from = page_start(from) + XLOG_BLCKSZ) {
    const XLogRecPtr to = std::min(end, page_start(from) + XLOG_BLCKSZ);
    seconds += shmem::fault_seconds(me, shmem::WalBuffers, shmem::wal_offset(from, pages), to - from, access);
  }
  return seconds;
}

// The cache lines a record is copied into were last written by another core: the first one,
// shared with the previous record, by that record's inserter; the others by whoever zeroed the
// WAL buffer page. Each must be fetched for writing; after the first, the misses overlap.
double Xlog::copy_line_transfers(Backend& me, XLogRecPtr start, XLogRecPtr end)
{
  constexpr XLogRecPtr kLine = 64;
  const sim::Cpu& cpu        = me.proc.cpu();
  const int me_slot          = me.proc.slot();
  const bool shares_line     = start / kLine == last_insert_end_ / kLine && last_insert_end_ % kLine != 0;
  double seconds             = cpu.transfer(shares_line ? last_insert_slot_ : zeroed_by(start), me_slot);
  for (XLogRecPtr line = start / kLine * kLine + kLine; line < end; line += kLine)
    seconds += cpu.transfer(zeroed_by(line), me_slot) / cpu.params().line_parallelism;
  last_insert_end_  = end;
  last_insert_slot_ = me_slot;
  return seconds;
}

int Xlog::zeroed_by(XLogRecPtr lsn) const
{
  return page_zeroed_by_[static_cast<std::size_t>(lsn / XLOG_BLCKSZ) % page_zeroed_by_.size()];
}

void Xlog::AdvanceXLInsertBuffer(Backend& me, XLogRecPtr upto)
{
  const double nbuffers = wal_buffer_pages_;
  WALBufMappingLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  while (upto >= InitializedUpTo_) {
    // The buffer that will hold the next page still holds the page nbuffers pages back.
    const double old_end            = static_cast<double>(InitializedUpTo_) + XLOG_BLCKSZ - nbuffers * XLOG_BLCKSZ;
    const XLogRecPtr OldPageRqstPtr = old_end > 0 ? static_cast<XLogRecPtr>(old_end) : 0;
    if (me.LogwrtResult.Write < OldPageRqstPtr) {
      read_shared_result(me);
      LogwrtRqstWrite_ = std::max(LogwrtRqstWrite_, OldPageRqstPtr);
      if (me.LogwrtResult.Write < OldPageRqstPtr) {
        // wal_buffers is full: write the old page out ourselves.
        WALBufMappingLock_.release(me.proc);
        WaitXLogInsertionsToFinish(me, OldPageRqstPtr);
        WALWriteLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
        me.LogwrtResult = shared_result_;
        if (me.LogwrtResult.Write < OldPageRqstPtr) {
          XLogWrite(me, OldPageRqstPtr, InvalidXLogRecPtr, false);
          stats_.wal_buffers_full++;
        }
        WALWriteLock_.release(me.proc);
        WALBufMappingLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
        continue;
      }
    }
    init_page(me);
  }
  WALBufMappingLock_.release(me.proc);
}

void Xlog::init_page(Backend& me)
{
  me.proc.work(costs_.xlog_page_init);
  me.proc.stall(wal_buffer_faults(me, InitializedUpTo_, InitializedUpTo_ + XLOG_BLCKSZ, sim::PageAccess::Write));
  page_zeroed_by_[static_cast<std::size_t>(InitializedUpTo_ / XLOG_BLCKSZ) % page_zeroed_by_.size()] =
      static_cast<std::int16_t>(me.proc.slot());
  InitializedUpTo_ += XLOG_BLCKSZ;
}

void Xlog::AdvanceXLInsertBufferOpportunistic(Backend& me)
{
  const XLogRecPtr ahead = static_cast<XLogRecPtr>(wal_buffer_pages_) * XLOG_BLCKSZ;
  if (InitializedUpTo_ + XLOG_BLCKSZ > shared_result_.Write + ahead) return;
  WALBufMappingLock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  // Initialise every buffer whose old page has been written already.
  while (InitializedUpTo_ + XLOG_BLCKSZ <= shared_result_.Write + ahead) {
    init_page(me);
  }
  WALBufMappingLock_.release(me.proc);
}

XLogRecPtr Xlog::start_checkpoint(Backend& me)
{
  spin(insertpos_lck_, me);
  redo_ptr_   = insert_lsn();
  redo_valid_ = true;
  return redo_ptr_;
}

// A short section under one of XLogCtl's spinlocks.
void Xlog::spin(sim::Spinlock& lock, Backend& me)
{
  lock.run(me.proc, me.proc.seconds_for(costs_.spinlock_section));
}

void Xlog::read_shared_result(Backend& me)
{
  spin(info_lck_, me);
  me.LogwrtResult = shared_result_;
}

void Xlog::check_invariants() const
{
  if (shared_result_.Flush > shared_result_.Write || shared_result_.Write > insert_lsn())
    throw std::logic_error("WAL positions out of order: flushed " + std::to_string(shared_result_.Flush) +
                           ", written " + std::to_string(shared_result_.Write) + ", inserted " +
                           std::to_string(insert_lsn()));
}

void Xlog::reset_stats()
{
  stats_.reset();
  insertpos_lck_.reset_stats();
  info_lck_.reset_stats();
  for (auto& l : insert_locks_) l.stats() = sim::LWLockStats();
  WALWriteLock_.stats()      = sim::LWLockStats();
  WALBufMappingLock_.stats() = sim::LWLockStats();
}

} // namespace pg
