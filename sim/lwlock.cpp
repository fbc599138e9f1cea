/* LWLocks as in src/backend/storage/lmgr/lwlock.c (PostgreSQL 9.5-16 for the "atomic" state word,
 * 9.4 and earlier for the "spinlock" one). See lwlock.hpp. */
#include "sim/lwlock.hpp"

#include "sim/clock.hpp"
#include "sim/proc.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace sim {

namespace {
std::uint8_t as_byte(LWLockMode mode)
{
  return static_cast<std::uint8_t>(mode);
}
LWLockMode mode_of(const Proc& proc)
{
  return static_cast<LWLockMode>(proc.lw_wait_mode);
}
} // namespace

void LWLockStats::add(const LWLockStats& other)
{
  shacq += other.shacq;
  exacq += other.exacq;
  blk += other.blk;
  spindelay += other.spindelay;
  acquire_seconds += other.acquire_seconds;
  wait_seconds += other.wait_seconds;
}

LWLock::LWLock(std::string name, WaitEventId event, const LWLockParams& params)
    : name_(std::move(name)), event_(event), params_(params)
{
}

// The state word is read and compare-and-swapped whether or not the lock is free; with the old
// implementation the whole check runs under the lock's spinlock. LWLockAttemptLock loads the word
// before its compare-and-swap, so a line last written by another core crosses twice: shared for
// the load, then taken back for the write (9.5+; 9.4's TAS writes at once).
bool LWLock::attempt(Proc& proc, LWLockMode mode)
{
  proc.stall(params_.op_cost);
  if (!params_.spinlock_impl) line_.read(proc);
  const double waited = line_.rmw(proc, params_.spinlock_impl ? params_.list_hold : 0.0);
  if (params_.spinlock_impl && waited > params_.spin_delay_after) stats_.spindelay++;
  // The state word is seen once the line is ours: at the process's own time after the atomic.
  if (holder_conflicts(mode) || proc.local_time() < released_at(mode)) return false;
  if (mode == LWLockMode::Exclusive)
    exclusive_ = &proc;
  else
    shared_++;
  return true;
}

bool LWLock::holder_conflicts(LWLockMode mode) const
{
  return exclusive_ != nullptr || (mode == LWLockMode::Exclusive && shared_ > 0);
}

double LWLock::released_at(LWLockMode mode) const
{
  return mode == LWLockMode::Shared ? excl_released_at_ : std::max(excl_released_at_, shared_released_at_);
}

// A release still in flight completes at a known time. The holder still has the lock at this
// process's time, so the process does what LWLockAcquire does: it queues itself, sleeps on its
// semaphore, and is woken by the release (whose futex call the releaser pays), then needs a CPU
// again.
void LWLock::wait_for_release(Proc& proc, double when)
{
  stats_.blk++;
  proc.flush();
  const double start = now();
  if (Proc* releaser = releaser_of(when)) releaser->stall(params_.wake_cost);
  proc.block_until(when, event_);
  stats_.wait_seconds += now() - start;
  proc.flush(); // back on a CPU before trying again
}

Proc* LWLock::releaser_of(double when) const
{
  if (when == excl_released_at_) return excl_releaser_;
  if (when == shared_released_at_) return shared_releaser_;
  return nullptr;
}

void LWLock::wait_list_lock(Proc& proc)
{
  if (params_.spinlock_impl) return; // already covered by the spinlock taken in attempt()
  if (line_.rmw(proc, params_.list_hold) > params_.spin_delay_after) stats_.spindelay++;
}

void LWLock::queue_self(Proc& proc, LWLockMode mode)
{
  wait_list_lock(proc);
  proc.lw_waiting   = true;
  proc.lw_wait_mode = as_byte(mode);
  waiters_.push_back(&proc);
}

void LWLock::dequeue_self(Proc& proc)
{
  wait_list_lock(proc);
  // Nothing can run between queue_self() and this call, so we are still on the list.
  waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &proc));
  proc.lw_waiting = false;
}

void LWLock::sleep_until_woken(Proc& proc)
{
  stats_.blk++;
  const double start = now();
  while (proc.lw_waiting) proc.sleep(event_);
  stats_.wait_seconds += now() - start;
  proc.flush(); // a woken waiter runs only once it has a CPU again
}

void LWLock::note_held(Proc& proc)
{
  proc.held_lwlocks.push_back(this);
}

void LWLock::note_released(Proc& proc)
{
  auto& held = proc.held_lwlocks;
  auto it    = std::find(held.rbegin(), held.rend(), this);
  if (it == held.rend()) throw std::logic_error("LWLockRelease: lock " + name_ + " is not held by " + proc.name());
  held.erase(std::next(it).base());
}

bool LWLock::acquire(Proc& proc, LWLockMode mode)
{
  proc.flush();
  const double start = now();
  bool immediate     = true;
  (mode == LWLockMode::Exclusive ? stats_.exacq : stats_.shacq)++;
  for (;;) {
    if (attempt(proc, mode)) break;
    immediate = false;
    if (!holder_conflicts(mode)) {
      wait_for_release(proc, released_at(mode));
      continue;
    }
    // Queue first, then try once more, so a release between the two cannot be missed.
    queue_self(proc, mode);
    if (!params_.spinlock_impl && attempt(proc, mode)) {
      dequeue_self(proc);
      break;
    }
    if (!holder_conflicts(mode)) {
      dequeue_self(proc);
      continue;
    }
    sleep_until_woken(proc);
    release_ok_ = true;
  }
  note_held(proc);
  stats_.acquire_seconds += proc.local_time() - start;
  return immediate;
}

bool LWLock::conditional_acquire(Proc& proc, LWLockMode mode)
{
  proc.flush();
  if (!attempt(proc, mode)) return false;
  (mode == LWLockMode::Exclusive ? stats_.exacq : stats_.shacq)++;
  note_held(proc);
  return true;
}

bool LWLock::acquire_or_wait(Proc& proc, LWLockMode mode)
{
  proc.flush();
  const double start = now();
  bool acquired      = attempt(proc, mode);
  if (!acquired && !holder_conflicts(mode)) {
    wait_for_release(proc, released_at(mode));
  } else if (!acquired) {
    queue_self(proc, LWLockMode::WaitUntilFree);
    acquired = !params_.spinlock_impl && attempt(proc, mode);
    if (acquired || !holder_conflicts(mode)) {
      dequeue_self(proc);
      if (!acquired) wait_for_release(proc, released_at(mode));
    } else {
      sleep_until_woken(proc);
    }
  }
  if (acquired) {
    // LWLOCK_STATS does not count these; walsim does, so WALWriteLock shows its acquisitions.
    (mode == LWLockMode::Exclusive ? stats_.exacq : stats_.shacq)++;
    note_held(proc);
  }
  stats_.acquire_seconds += proc.local_time() - start;
  return acquired;
}

// With nobody waiting, the release does not wait for the holder's accrued work to be simulated:
// it takes effect at the holder's local time, and whoever comes before that waits until then.
// With waiters, the holder's work is simulated first, so that they are woken at the right time.
void LWLock::release(Proc& proc)
{
  if (!waiters_.empty()) proc.flush();
  note_released(proc);
  proc.stall(params_.op_cost);
  const double at = proc.local_time();
  if (exclusive_ == &proc) {
    exclusive_ = nullptr;
    if (at >= excl_released_at_) {
      excl_released_at_ = at;
      excl_releaser_    = &proc;
    }
  } else if (shared_ > 0) {
    shared_--;
    if (at >= shared_released_at_) {
      shared_released_at_ = at;
      shared_releaser_    = &proc;
    }
  } else {
    throw std::logic_error("LWLockRelease: lock " + name_ + " has no holder");
  }
  line_.rmw(proc, params_.spinlock_impl ? params_.list_hold : 0.0);
  if (is_free() && release_ok_ && !waiters_.empty()) wakeup(proc);
}

// LWLockWakeup: every shared waiter up to the first exclusive one (which is woken too), and
// every LW_WAIT_UNTIL_FREE waiter; no further wake-ups until a woken process has run.
void LWLock::wakeup(Proc& releaser)
{
  wait_list_lock(releaser);
  std::vector<Proc*> woken;
  std::size_t kept   = 0; // the waiters that stay are compacted to the front, in order
  bool woke_somebody = false;
  bool stop          = false;
  bool new_ok        = true;
  for (Proc* w : waiters_) {
    const LWLockMode mode = mode_of(*w);
    if (stop || (woke_somebody && mode == LWLockMode::Exclusive)) {
      waiters_[kept++] = w;
      continue;
    }
    woken.push_back(w);
    if (mode != LWLockMode::WaitUntilFree) {
      new_ok        = false;
      woke_somebody = true;
    }
    if (mode == LWLockMode::Exclusive) stop = true;
  }
  waiters_.resize(kept);
  release_ok_ = new_ok;
  for (Proc* w : woken) {
    w->lw_waiting = false;
    releaser.stall(params_.wake_cost);
    releaser.flush(); // the waiter wakes at the releaser's time, after its futex call
    w->wake();
  }
}

// A reader ahead of the engine's clock sees the lock as of the clock: a hold that others begin
// and end in between would go unseen. WAL insertion locks are held for a fraction of a
// microsecond, so the read first brings the reader within kMaxReadLag of the clock. (Without it,
// WaitXLogInsertionsToFinish at 8 locks saw one hold in six; flushing before every read sees
// about 7% more holds than this, and makes a 128-lock scan three times as dear to simulate.)
bool LWLock::wait_for_var(Proc& proc, std::uint64_t oldval, std::uint64_t* newval, double overlap)
{
  constexpr double kMaxReadLag = 100e-9;
  for (bool first = true;; first = false) {
    proc.catch_up(kMaxReadLag);
    line_.read(proc, first ? overlap : 1);
    if (exclusive_ == nullptr && proc.local_time() >= excl_released_at_) return true;
    if (exclusive_ == nullptr) {
      // The holder released without waiting for its copy to be simulated: it inserts until then.
      proc.flush();
      wait_for_release(proc, excl_released_at_);
      continue;
    }
    // PostgreSQL 15's LWLockConflictsWithVar reads the variable under the wait-list lock (16
    // made it an atomic read), so flushers contend with the inserters for the lock word.
    wait_list_lock(proc);
    if (var_ != oldval) {
      *newval = var_;
      return false;
    }
    proc.flush();
    queue_self(proc, LWLockMode::WaitUntilFree);
    if (exclusive_ == nullptr || var_ != oldval) {
      dequeue_self(proc);
      continue;
    }
    sleep_until_woken(proc);
  }
}

void LWLock::wake_var_waiters(Proc& proc)
{
  std::vector<Proc*> woken;
  std::size_t kept = 0; // the waiters that stay are compacted to the front, in order
  for (Proc* w : waiters_) {
    if (mode_of(*w) == LWLockMode::WaitUntilFree)
      woken.push_back(w);
    else
      waiters_[kept++] = w;
  }
  waiters_.resize(kept);
  for (Proc* w : woken) {
    w->lw_waiting = false;
    proc.stall(params_.wake_cost);
    proc.flush();
    w->wake();
  }
}

void LWLock::update_var(Proc& proc, std::uint64_t value)
{
  proc.flush();
  wait_list_lock(proc);
  var_ = value;
  wake_var_waiters(proc);
}

void LWLock::release_clear_var(Proc& proc, std::uint64_t value)
{
  wait_list_lock(proc);
  var_ = value;
  release(proc);
}

} // namespace sim
