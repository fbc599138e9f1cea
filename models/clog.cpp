/* The commit log: clog.c and the parts of slru.c it uses (PostgreSQL 15). See clog.hpp. */
#include "models/clog.hpp"

#include "models/pgbench.hpp"
#include "models/xlog.hpp"

#include <algorithm>

namespace pg {

namespace {
int clog_buffers(const Settings& s)
{
  if (s.num_clog_buffers > 0) return s.num_clog_buffers;
  // CLOGShmemBuffers(): Min(128, Max(4, NBuffers / 512)).
  const double nbuffers = s.shared_buffers / BLCKSZ;
  return static_cast<int>(std::min(128.0, std::max(4.0, std::floor(nbuffers / 512))));
}

int page_of(TransactionId xid)
{
  return static_cast<int>(xid / CLOG_XACTS_PER_PAGE);
}

constexpr std::size_t kXidsPerLine  = 256; // 64 bytes of 2-bit statuses, or of group LSNs
constexpr std::size_t kLruPerLine   = 16;  // page_lru_count: int
constexpr std::size_t kDirtyPerLine = 64;  // page_dirty: bool
constexpr std::size_t kSlotsPerLine = 16;  // page_number, page_status: int

std::size_t lines_for(std::size_t entries, std::size_t per_line)
{
  return (entries + per_line - 1) / per_line;
}
} // namespace

sim::CacheLine& Clog::XidLines::of(TransactionId xid)
{
  const std::uint64_t line = xid / kXidsPerLine;
  const std::size_t i      = static_cast<std::size_t>(line % kRing);
  if (tags_[i] != line) {
    lines_[i] = sim::CacheLine();
    tags_[i]  = line;
  }
  return lines_[i];
}

Clog::Clog(const Scenario& scenario, const WaitEvents& events, Xlog& xlog)
    : scenario_(scenario), ev_(events), xlog_(xlog),
      XactSLRULock_("XactSLRULock", events.XactSLRU, scenario.policies.lwlock),
      first_xid_(static_cast<TransactionId>(FirstNormalTransactionId + prior_xids(scenario.pgbench)))
{
  const auto n = static_cast<std::size_t>(clog_buffers(scenario.settings));
  page_number_.assign(n, -1);
  lru_count_.assign(n, 0);
  dirty_.assign(n, false);
  io_.assign(n, PageIo::None);
  for (std::size_t i = 0; i < n; i++)
    buffer_locks_.push_back(std::make_unique<sim::LWLock>("XactBuffer", events.XactBuffer, scenario.policies.lwlock));
  lru_lines_   = std::vector<sim::CacheLine>(lines_for(n, kLruPerLine));
  dirty_lines_ = std::vector<sim::CacheLine>(lines_for(n, kDirtyPerLine));
  slot_lines_  = std::vector<sim::CacheLine>(lines_for(n, kSlotsPerLine));
  load_prior_pages();
}

// The buffers as a long run leaves them: the latest pages, most recently used last, clean but
// for the latest one (the one commits are writing), which ExtendCLOG would have made.
void Clog::load_prior_pages()
{
  if (first_xid_ == FirstNormalTransactionId) return;
  const int latest = page_of(first_xid_ - 1);
  const int oldest = std::max(page_of(FirstNormalTransactionId), latest - static_cast<int>(page_number_.size()) + 1);
  for (int pageno = oldest; pageno <= latest; pageno++) {
    const auto slot    = static_cast<std::size_t>(pageno - oldest);
    page_number_[slot] = pageno;
    lru_count_[slot]   = ++cur_lru_count_;
  }
  latest_page_number_                               = latest;
  dirty_[static_cast<std::size_t>(latest - oldest)] = true;
}

XidStatus Clog::peek(TransactionId xid) const
{
  if (xid < first_xid_) return XidStatus::Committed; // bootstrap, frozen and earlier transaction ids
  const std::size_t i = xid - first_xid_;
  return i < status_.size() ? status_[i] : XidStatus::InProgress;
}

XLogRecPtr Clog::group_lsn(TransactionId xid) const
{
  const std::size_t group = xid / CLOG_XACTS_PER_LSN_GROUP;
  const std::size_t first = first_xid_ / CLOG_XACTS_PER_LSN_GROUP;
  return group >= first && group - first < group_lsn_.size() ? group_lsn_[group - first] : InvalidXLogRecPtr;
}

void Clog::record(TransactionId xid, XidStatus status, XLogRecPtr lsn)
{
  const std::size_t i = xid - first_xid_;
  if (status_.size() <= i) status_.resize(i + 1024u, XidStatus::InProgress);
  status_[i]              = status;
  const std::size_t group = xid / CLOG_XACTS_PER_LSN_GROUP - first_xid_ / CLOG_XACTS_PER_LSN_GROUP;
  if (group_lsn_.size() <= group) group_lsn_.resize(group + 16u, InvalidXLogRecPtr);
  group_lsn_[group] = std::max(group_lsn_[group], lsn);
}

int Clog::find_slot(int pageno) const
{
  for (std::size_t s = 0; s < page_number_.size(); s++)
    if (page_number_[s] == pageno) return static_cast<int>(s);
  return -1;
}

// The loop's loads are independent: a core overlaps the misses of a line's neighbours.
int Clog::find_slot(Backend& me, int pageno)
{
  const int slot          = find_slot(pageno);
  const std::size_t last  = slot < 0 ? page_number_.size() - 1 : static_cast<std::size_t>(slot);
  const std::size_t lines = last / kSlotsPerLine + 1;
  const double overlap    = static_cast<double>(std::min<std::size_t>(lines, 4));
  for (std::size_t l = 0; l < lines; l++) slot_lines_[l].read(me.proc, overlap);
  return slot;
}

void Clog::set_slot_page(Backend& me, int slot, int pageno)
{
  const auto s    = static_cast<std::size_t>(slot);
  page_number_[s] = pageno;
  slot_lines_[s / kSlotsPerLine].rmw(me.proc);
}

// SlruRecentlyUsed (slru.c): the counters change only when another page was used since, so the
// many accesses to the latest page leave these shared lines clean in every core's cache.
void Clog::SlruRecentlyUsed(Backend& me, int slot)
{
  const auto s          = static_cast<std::size_t>(slot);
  sim::CacheLine& count = lru_lines_[s / kLruPerLine];
  if (lru_count_[s] == cur_lru_count_) {
    count.read(me.proc);
    return;
  }
  lru_count_[s] = ++cur_lru_count_;
  header_line_.rmw(me.proc);
  count.rmw(me.proc);
}

// SlruSelectLRUPage: an empty slot, else the one used longest ago (the older page on a tie),
// never the latest page while there is another. A dirty victim is written out first, and the
// choice made again, since others may have used the buffers meanwhile. Returns pageno's own slot
// if it arrived during such a write.
int Clog::SlruSelectLRUPage(Backend& me, int pageno)
{
  for (;;) {
    const int victim = SlruChooseVictim();
    const auto v     = static_cast<std::size_t>(victim);
    if (page_number_[v] < 0 || !dirty_[v] || io_[v] != PageIo::None) return victim;
    SlruInternalWritePage(me, victim);
    // CLogControlLock was released for the write: someone may have brought the page in meanwhile.
    const int found = find_slot(me, pageno);
    if (found >= 0) return found;
  }
}

// The oldest page with no I/O in progress, if there is one; else the oldest page under I/O, which
// the caller waits for.
int Clog::SlruChooseVictim() const
{
  std::size_t victim       = 0;
  std::uint64_t victim_age = 0;
  bool found = false, found_valid = false;
  for (std::size_t s = 0; s < page_number_.size(); s++) {
    if (page_number_[s] < 0) return static_cast<int>(s);
    if (page_number_[s] == latest_page_number_ && page_number_.size() > 1) continue;
    const bool valid        = io_[s] == PageIo::None;
    const std::uint64_t age = cur_lru_count_ - lru_count_[s];
    const bool older        = age > victim_age || (age == victim_age && page_number_[s] < page_number_[victim]);
    if (!found || (valid && !found_valid) || (valid == found_valid && older)) {
      victim      = s;
      victim_age  = age;
      found       = true;
      found_valid = valid;
    }
  }
  return static_cast<int>(victim);
}

// As for a read, CLogControlLock is released for the write; the page stays readable meanwhile,
// and a commit may set a status on it again, which leaves it dirty.
void Clog::SlruInternalWritePage(Backend& me, int slot)
{
  const auto s = static_cast<std::size_t>(slot);
  io_[s]       = PageIo::Write; // before page_dirty is cleared, as slru.c orders them
  dirty_[s]    = false;
  dirty_lines_[s / kDirtyPerLine].rmw(me.proc);
  const auto& os = scenario_.hardware.os;
  SlruPageIO(me, s, PageIo::Write, os.pwrite + os.pwrite_per_kb * BLCKSZ / 1024.0, ev_.IoSLRUWrite);
  stats_.blks_written++;
}

// An I/O on a slot's page (pg_xact lives in the OS page cache: a system call and a copy), run
// under the buffer's own lock with CLogControlLock released, held again on return.
void Clog::SlruPageIO(Backend& me, std::size_t s, PageIo io, double seconds, sim::WaitEventId event)
{
  io_[s] = io;
  buffer_locks_[s]->acquire(me.proc, sim::LWLockMode::Exclusive);
  XactSLRULock_.release(me.proc);
  me.proc.syscall(seconds, event);
  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  io_[s] = PageIo::None;
  buffer_locks_[s]->release(me.proc);
}

// As slru.c does, the read runs without CLogControlLock, under the buffer's own lock, so that
// lookups of other pages go on meanwhile; whoever wants the page (or its slot) in the meantime
// waits for that lock.
int Clog::SimpleLruReadPage(Backend& me, int pageno, bool write_ok)
{
  for (;;) {
    header_line_.read(me.proc);
    int slot = find_slot(me, pageno);
    if (slot >= 0) {
      const PageIo io = io_[static_cast<std::size_t>(slot)];
      if (io == PageIo::Read || (io == PageIo::Write && !write_ok)) {
        SimpleLruWaitIO(me, slot);
        continue;
      }
    }
    if (slot >= 0) {
      stats_.blks_hit++;
      SlruRecentlyUsed(me, slot);
      return slot;
    }
    slot         = SlruSelectLRUPage(me, pageno);
    const auto s = static_cast<std::size_t>(slot);
    if (page_number_[s] == pageno) continue; // read in by another backend: look again
    if (io_[s] != PageIo::None) {
      SimpleLruWaitIO(me, slot);
      continue;
    }
    set_slot_page(me, slot, pageno);
    dirty_[s]      = false;
    const auto& os = scenario_.hardware.os;
    SlruPageIO(me, s, PageIo::Read, os.pread + os.pread_per_kb * BLCKSZ / 1024.0, ev_.IoSLRURead);
    stats_.blks_read++;
    SlruRecentlyUsed(me, slot);
    return slot;
  }
}

void Clog::SimpleLruWaitIO(Backend& me, int slot)
{
  sim::LWLock& buffer = *buffer_locks_[static_cast<std::size_t>(slot)];
  XactSLRULock_.release(me.proc);
  buffer.acquire(me.proc, sim::LWLockMode::Shared);
  buffer.release(me.proc);
  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
}

XidStatus Clog::TransactionIdGetStatus(Backend& me, TransactionId xid, XLogRecPtr* lsn)
{
  const int pageno = page_of(xid);
  // SimpleLruReadPage_ReadOnly: a shared lock suffices when the page is resident.
  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Shared);
  header_line_.read(me.proc);
  const int slot = find_slot(me, pageno);
  if (slot >= 0 && io_[static_cast<std::size_t>(slot)] != PageIo::Read) {
    SlruRecentlyUsed(me, slot);
    stats_.blks_hit++;
  } else {
    XactSLRULock_.release(me.proc);
    XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
    SimpleLruReadPage(me, pageno, true);
  }
  me.proc.work(scenario_.costs.clog_fetch);
  // The status byte and the group LSN: lines that each commit of a nearby transaction writes.
  status_lines_.of(xid).read(me.proc);
  group_lsn_lines_.of(xid).read(me.proc);
  const XidStatus status = peek(xid);
  *lsn                   = group_lsn(xid);
  XactSLRULock_.release(me.proc);
  return status;
}

void Clog::TransactionIdSetTreeStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn)
{
  TransactionIdSetPageStatus(me, xid, status, lsn, page_of(xid));
}

void Clog::TransactionIdSetPageStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn, int pageno)
{
  if (scenario_.policies.clog_group_update) {
    // Update our own status if the lock is free at once; else let a group leader do it.
    if (XactSLRULock_.conditional_acquire(me.proc, sim::LWLockMode::Exclusive)) {
      TransactionIdSetPageStatusInternal(me, xid, status, lsn);
      XactSLRULock_.release(me.proc);
      return;
    }
    if (TransactionGroupUpdateXidStatus(me, xid, status, lsn, pageno)) return;
  }
  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  TransactionIdSetPageStatusInternal(me, xid, status, lsn);
  XactSLRULock_.release(me.proc);
}

void Clog::TransactionIdSetPageStatusInternal(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn)
{
  // An asynchronous commit's status must not reach disk before its commit record, so it waits for
  // a write in progress; a synchronous one may change the page under the write (clog.c).
  const auto slot = static_cast<std::size_t>(SimpleLruReadPage(me, page_of(xid), lsn == InvalidXLogRecPtr));
  me.proc.work(scenario_.costs.clog_set);
  // TransactionIdSetStatusBit: the status byte, and an asynchronous commit's group LSN if later.
  status_lines_.of(xid).rmw(me.proc);
  if (lsn != InvalidXLogRecPtr) {
    if (group_lsn(xid) >= lsn)
      group_lsn_lines_.of(xid).read(me.proc);
    else
      group_lsn_lines_.of(xid).rmw(me.proc);
  }
  // page_dirty[slotno] = true is a store whether or not the flag was set.
  dirty_[slot] = true;
  dirty_lines_[slot / kDirtyPerLine].rmw(me.proc);
  record(xid, status, lsn);
}

bool Clog::TransactionGroupUpdateXidStatus(Backend& me, TransactionId xid, XidStatus status, XLogRecPtr lsn, int pageno)
{
  me.clogGroupMember          = true;
  me.clogGroupMemberXid       = xid;
  me.clogGroupMemberXidStatus = status;
  me.clogGroupMemberPage      = pageno;
  me.clogGroupMemberLsn       = lsn;

  // Join the group only if it is for the same CLOG page (compare-and-swap on clogGroupFirst).
  group_first_.rmw(me.proc);
  if (!group_.empty() && group_.front()->clogGroupMemberPage != pageno) {
    me.clogGroupMember = false;
    return false;
  }
  const bool leader = group_.empty();
  group_.push_back(&me);
  if (!leader) {
    while (me.clogGroupMember) me.proc.sleep(ev_.XactGroupUpdate);
    return true;
  }

  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  group_first_.rmw(me.proc);
  std::vector<Backend*> members;
  members.swap(group_);
  for (Backend* m : members)
    TransactionIdSetPageStatusInternal(me, m->clogGroupMemberXid, m->clogGroupMemberXidStatus, m->clogGroupMemberLsn);
  XactSLRULock_.release(me.proc);
  stats_.group_updates++;
  stats_.group_members += members.size() - 1;

  // The statuses were recorded when the leader's accrued work began; they are set only once
  // that work (and the release) has run, so a member must not run on before then: simulate it
  // first, then wake each member after the futex call that wakes it.
  me.proc.flush();
  for (Backend* m : members) {
    m->clogGroupMember = false;
    if (m != &me) {
      me.proc.stall(scenario_.hardware.os.futex_wake);
      me.proc.flush();
      m->proc.wake();
    }
  }
  return true;
}

void Clog::ExtendCLOG(Backend& me, TransactionId newestXact)
{
  if (newestXact % CLOG_XACTS_PER_PAGE != 0 && newestXact != FirstNormalTransactionId) return;
  XactSLRULock_.acquire(me.proc, sim::LWLockMode::Exclusive);
  // ZeroCLOGPage: take a buffer for the new page (one no read is filling), and WAL-log the zeroing.
  const int pageno = page_of(newestXact);
  int slot         = SlruSelectLRUPage(me, pageno);
  while (io_[static_cast<std::size_t>(slot)] != PageIo::None) {
    SimpleLruWaitIO(me, slot);
    slot = SlruSelectLRUPage(me, pageno);
  }
  set_slot_page(me, slot, pageno);
  dirty_[static_cast<std::size_t>(slot)] = true;
  latest_page_number_                    = pageno;
  SlruRecentlyUsed(me, slot);
  stats_.blks_zeroed++;
  xlog_.XLogInsert(me, XLogRecordData{32, 0});
  XactSLRULock_.release(me.proc);
}

} // namespace pg
