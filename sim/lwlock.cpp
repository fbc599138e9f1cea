/* LWLocks as in src/backend/storage/lmgr/lwlock.c (PostgreSQL 9.5-16 for the "atomic" state word,
 * 9.4 and earlier for the "spinlock" one). See lwlock.hpp. */
#include "sim/lwlock.hpp"

#include "sim/proc.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace sim {

namespace {
double now()
{
  return simgrid::s4u::Engine::get_clock();
}
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
// implementation the whole check runs under the lock's spinlock.
bool LWLock::attempt(Proc& proc, LWLockMode mode)
{
  const double waited = line_.rmw(proc, params_.spinlock_impl ? params_.list_hold : 0.0);
  if (params_.spinlock_impl && waited > params_.spin_delay_after) stats_.spindelay++;
  if (mode == LWLockMode::Exclusive) {
    if (!is_free()) return false;
    exclusive_ = &proc;
  } else {
    if (exclusive_ != nullptr) return false;
    shared_++;
  }
  return true;
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
    // Queue first, then try once more, so a release between the two cannot be missed.
    queue_self(proc, mode);
    if (params_.spinlock_impl || !attempt(proc, mode)) {
      immediate = false;
      sleep_until_woken(proc);
      release_ok_ = true;
      continue;
    }
    dequeue_self(proc);
    break;
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
  if (!acquired) {
    queue_self(proc, LWLockMode::WaitUntilFree);
    acquired = !params_.spinlock_impl && attempt(proc, mode);
    if (acquired)
      dequeue_self(proc);
    else
      sleep_until_woken(proc);
  }
  if (acquired) {
    // LWLOCK_STATS does not count these; walsim does, so WALWriteLock shows its acquisitions.
    (mode == LWLockMode::Exclusive ? stats_.exacq : stats_.shacq)++;
    note_held(proc);
  }
  stats_.acquire_seconds += proc.local_time() - start;
  return acquired;
}

void LWLock::release(Proc& proc)
{
  proc.flush();
  note_released(proc);
  if (exclusive_ == &proc)
    exclusive_ = nullptr;
  else if (shared_ > 0)
    shared_--;
  else
    throw std::logic_error("LWLockRelease: lock " + name_ + " has no holder");
  line_.rmw(proc, params_.spinlock_impl ? params_.list_hold : 0.0);
  if (is_free() && release_ok_ && !waiters_.empty()) wakeup(proc);
}

// LWLockWakeup: every shared waiter up to the first exclusive one (which is woken too), and
// every LW_WAIT_UNTIL_FREE waiter; no further wake-ups until a woken process has run.
void LWLock::wakeup(Proc& releaser)
{
  wait_list_lock(releaser);
  std::vector<Proc*> woken;
  std::deque<Proc*> remaining;
  bool woke_somebody = false;
  bool stop          = false;
  bool new_ok        = true;
  for (Proc* w : waiters_) {
    const LWLockMode mode = mode_of(*w);
    if (stop || (woke_somebody && mode == LWLockMode::Exclusive)) {
      remaining.push_back(w);
      continue;
    }
    woken.push_back(w);
    if (mode != LWLockMode::WaitUntilFree) {
      new_ok        = false;
      woke_somebody = true;
    }
    if (mode == LWLockMode::Exclusive) stop = true;
  }
  waiters_.swap(remaining);
  release_ok_ = new_ok;
  for (Proc* w : woken) {
    w->lw_waiting = false;
    releaser.stall(params_.wake_cost);
    w->wake();
  }
}

bool LWLock::wait_for_var(Proc& proc, std::uint64_t oldval, std::uint64_t* newval)
{
  proc.flush();
  for (;;) {
    line_.read(proc);
    if (exclusive_ == nullptr) return true;
    if (var_ != oldval) {
      *newval = var_;
      return false;
    }
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
  std::deque<Proc*> remaining;
  std::vector<Proc*> woken;
  for (Proc* w : waiters_) {
    if (mode_of(*w) == LWLockMode::WaitUntilFree)
      woken.push_back(w);
    else
      remaining.push_back(w);
  }
  waiters_.swap(remaining);
  for (Proc* w : woken) {
    w->lw_waiting = false;
    proc.stall(params_.wake_cost);
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
  proc.flush();
  wait_list_lock(proc);
  var_ = value;
  release(proc);
}

} // namespace sim
