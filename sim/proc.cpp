/* Simulated processes: lazily simulated CPU work, sleeping on a semaphore, run-queue waits. */
#include "sim/proc.hpp"

#include "sim/clock.hpp"
#include "sim/cpu.hpp"
#include "sim/lookahead.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim {

namespace {
// The process whose actor runs now: SimGrid runs one actor at a time, and every process's actor
// blocks only inside Proc, which sets this again when it resumes.
Proc* running = nullptr;
} // namespace

Proc::Proc(std::string name, int id, Cpu& cpu)
    : name_(std::move(name)), id_(id), cpu_(cpu), sem_(simgrid::s4u::Semaphore::create(0)), kind_(cpu.kind_of(name_))
{
}

void Proc::catch_up(double lag)
{
  if (local_time() - now() > lag) flush();
}

double Proc::local_time() const
{
  if (pending_work_ == 0 && pending_stall_ == 0 && pending_idle_ == 0) return now();
  return now() + seconds_for(pending_work_) + pending_stall_ + pending_idle_;
}

double Proc::seconds_for(double ref_ns) const
{
  return cpu_.duration(slot_ >= 0 ? slot_ : 0, ref_ns);
}

// The system call's time is accrued like other work, but counted under its wait event rather
// than as CPU, without a flush of its own.
void Proc::syscall(double seconds, WaitEventId event)
{
  const double from = local_time();
  const double t    = now();
  syscalls_.erase(std::remove_if(syscalls_.begin(), syscalls_.end(), [t](const SyscallSpan& s) { return s.to <= t; }),
                  syscalls_.end());
  syscalls_.push_back({from, from + seconds, event});
  stall(seconds);
  times_.add(event, active_, seconds);
  syscall_seconds_ += seconds;
}

double Proc::timed_syscall(double seconds, WaitEventId event)
{
  flush();
  const double start = now();
  syscall(seconds, event);
  flush();
  preemption_point();
  return local_time() - start;
}

void Proc::flush()
{
  running = this;
  take_cpu();
  preemption_point();
  if (pending_work_ == 0 && pending_stall_ == 0 && pending_idle_ == 0) return;
  const double ref_ns = pending_work_;
  const double stall  = pending_stall_ + pending_idle_;
  // A CPU coming out of its idle state holds the process back without being busy.
  cpu_.discount_busy(pending_idle_, kind_);
  pending_work_  = 0;
  pending_stall_ = 0;
  pending_idle_  = 0;
  run(cpu_.duration(slot_, ref_ns) + stall);
}

// Runs for `seconds` on the CPU, in time slices: when a slice ends while others wait for a CPU,
// the process goes to the back of the run queue, as a preempted process does.
void Proc::run(double seconds)
{
  while (seconds > 0) {
    preemption_point();
    if (slice_left_ <= 0) {
      if (cpu_.should_yield(*this)) yield_cpu();
      slice_left_ = cpu_.params().time_slice;
    }
    const double chunk = std::min(seconds, slice_left_);
    chunk_since_       = now();
    if (!lookahead::skip_to(now() + chunk)) lookahead::sleep_until(now() + chunk);
    chunk_since_ = -1;
    running      = this;
    seconds -= chunk;
    slice_left_ -= chunk;
    cpu_.charge(*this, chunk);
  }
}

// A running process that has to wait for a CPU again (its slice ended, or a woken process took its
// CPU) may be inside sleep(), after its caller checked what it waits for: a wake-up meant for that
// sleep must survive the wait for the CPU, or the process would sleep through it.
void Proc::wait_for_grant(bool keep_wakes)
{
  keep_wakes_ = keep_wakes;
  // A wake-up that came while the process was still running is for that later sleep, too.
  if (keep_wakes && wake_pending_) {
    wake_pending_ = false;
    missed_wake_  = true;
  }
  while (!granted) {
    if (!cpu_.balances_at_ticks()) {
      park(-1);
      continue;
    }
    // Where nothing else moves a waiting process to an idle CPU, the next tick's balance may.
    const double tick = cpu_.next_tick(now());
    if (!park(tick - now()) && !granted) cpu_.tick_balance(*this, tick);
  }
  keep_wakes_ = false;
  if (missed_wake_) {
    missed_wake_  = false;
    wake_pending_ = true;
  }
}

// The run queue hands this process a CPU.
void Proc::grant()
{
  granted = true;
  signal(false, true);
}

// Back to the run queue, still wanting to run (an involuntary switch), until a CPU is free again.
void Proc::yield_cpu()
{
  cpu_.release(*this, true);
  cpu_.enqueue(*this, false);
  wait_for_grant(true);
}

// A woken process asked for this one's CPU (wake-up preemption): give way now if it still waits.
void Proc::preemption_point()
{
  if (preempt_for_ == nullptr) return;
  const bool due = cpu_.preemption_due(*this);
  preempt_for_   = nullptr;
  if (!due) return;
  yield_cpu();
  slice_left_ = cpu_.params().time_slice;
}

void Proc::take_cpu()
{
  if (on_cpu_) return;
  if (!cpu_.try_take(*this, false)) {
    cpu_.enqueue(*this, false);
    wait_for_grant(true);
  }
  slice_left_ = cpu_.params().time_slice;
}

void Proc::set_allowed_cpus(const std::vector<int>& slots)
{
  allowed_.clear();
  if (slots.empty()) return;
  allowed_.assign(static_cast<std::size_t>(cpu_.slots()), 0);
  for (int s : slots) {
    if (s < 0 || s >= cpu_.slots()) throw std::invalid_argument(name_ + ": no CPU " + std::to_string(s));
    allowed_[static_cast<std::size_t>(s)] = 1;
  }
  cpu_.note_affinity();
}

void Proc::give_up_cpu()
{
  if (on_cpu_) cpu_.release(*this);
}

// A process that stopped waiting needs a CPU before it can do anything: onto an idle CPU after
// the idle-exit latency, or through the run queue and a context switch. A wake-up that finds no
// idle CPU and is served by another CPU than the waker's costs that CPU the reschedule interrupt
// too (busy_wakeup_cpu); one served by the waker's own CPU, or by a timer, does not.
//
// The wake-up's latency is accrued, not simulated at once: whatever the process does next that
// others could observe starts with a flush(). Callers switch the wait event to CPU only after
// this: a PostgreSQL process ends its wait event itself (pgstat_report_wait_end()), so
// pg_stat_activity shows time in the run queue under the wait that ended.
void Proc::resume()
{
  running = this;
  if (cpu_.try_take(*this, true)) {
    pending_idle_ += cpu_.params().idle_wakeup;
    stall(cpu_.params().idle_wakeup_cpu);
    cpu_.note_wakeup(kind_, cpu_.params().idle_wakeup);
  } else {
    const double woken_at = now();
    const int waker       = waker_slot_; // before the run queue's grant, itself a wake(), replaces it
    cpu_.enqueue(*this, true);
    // Woken from a sleep: the caller checks again what it waits for once it runs.
    wait_for_grant(false);
    cpu_.note_wakeup(kind_, now() - woken_at);
    const bool cross_cpu   = waker >= 0 && waker != slot_;
    const double interrupt = cross_cpu ? cpu_.params().busy_wakeup_cpu : 0.0;
    stall(cpu_.params().context_switch + interrupt);
  }
  waker_slot_  = -1;
  wake_target_ = -1;
  slice_left_  = cpu_.params().time_slice;
}

bool Proc::park(double timeout)
{
  if (wake_pending_) {
    // A wake() arrived while this process was running: no need to sleep at all.
    wake_pending_ = false;
    return true;
  }
  parked_    = true;
  bool woken = true;
  if (timeout < 0)
    sem_->acquire();
  else
    woken = !lookahead::acquire_timeout(*sem_, timeout);
  if (!woken && wake_issued_) {
    // Timed out, but a wake() came before this process ran again: take the token it left.
    sem_->acquire();
    woken = true;
  }
  if (wake_issued_) lookahead::note_running(); // it took the token a wake() left
  running      = this;
  parked_      = false;
  wake_issued_ = false;
  return woken;
}

// Only a parked process needs the semaphore; waking a running one just leaves a note, which
// spares the engine a simcall.
void Proc::wake(bool sync)
{
  signal(sync, false);
}

// Linux's try_to_wake_up() puts the woken process in the run queue in the waker's context; here
// the woken actor does it when it runs, so the waker lets it run before going on.
void Proc::wake_before_sleeping()
{
  signal(true, false);
  lookahead::yield();
}

// Whether this is the run queue's grant is an argument, not a flag kept while it runs: releasing
// the semaphore is a simcall, during which other actors run and may wake this process too.
void Proc::signal(bool sync, bool grant)
{
  if (keep_wakes_ && !grant) missed_wake_ = true;
  if (running != nullptr && running != this && running->on_cpu_) {
    waker_slot_ = running->slot_;
    waker_sync_ = sync;
  }
  if (!parked_) {
    wake_pending_ = true;
    return;
  }
  if (wake_issued_) return;
  wake_issued_ = true;
  if (!grant && cpu_.params().wake_placement == WakePlacement::WakeAffine) {
    Proc* waker = running != nullptr && running != this && running->on_cpu_ ? running : nullptr;
    cpu_.place_wakeup(*this, waker, waker != nullptr ? waker->slot_ : -1, sync);
  }
  lookahead::note_ready();
  lookahead::release(*sem_);
}

void Proc::exit()
{
  flush();
  give_up_cpu();
}

void Proc::sleep(WaitEventId event)
{
  flush();
  set_event(event);
  give_up_cpu();
  park(-1);
  resume();
  set_event(kCpu);
}

bool Proc::sleep_for(double timeout, WaitEventId event)
{
  flush();
  set_event(event);
  give_up_cpu();
  const bool woken = park(timeout);
  resume();
  set_event(kCpu);
  return woken;
}

void Proc::block_until(double when, WaitEventId event)
{
  flush();
  if (when <= now()) return;
  set_event(event);
  give_up_cpu();
  lookahead::sleep_until(when);
  end_device_wait();
}

void Proc::await_io(double when, WaitEventId event)
{
  flush();
  if (when <= now()) return;
  set_event(event);
  give_up_cpu();
  lookahead::sleep_until(when);
  deliver_io_completion();
  end_device_wait();
}

void Proc::block_until_told(const double& when, WaitEventId event)
{
  flush();
  set_event(event);
  give_up_cpu();
  while (when < 0) park(-1);
  waker_slot_ = -1; // the one who told us is not the one whose event wakes us
  lookahead::sleep_until(when);
  deliver_io_completion();
  end_device_wait();
}

// The device is done at now(); in a virtual machine the completion reaches the guest only once
// the host has a CPU for its device thread: at once while a vCPU idles, else when one goes idle
// (even briefly: the poll sees that it did), or once the host preempts a vCPU for it.
void Proc::deliver_io_completion()
{
  constexpr double kPoll = 2e-6;
  const double delay     = cpu_.params().busy_io_delay;
  if (delay > 0 && cpu_.all_busy()) {
    const double deadline     = now() + delay;
    const std::uint64_t idled = cpu_.idle_entries();
    while (now() < deadline && cpu_.all_busy() && cpu_.idle_entries() == idled)
      lookahead::sleep_until(std::min(deadline, now() + kPoll));
  }
  interrupt_busy_cpu();
  // The completion's interrupt wakes the waiter in the context of whatever runs on its CPU.
  const int irq = cpu_.params().io_interrupt_cpu;
  if (cpu_.params().wake_placement == WakePlacement::WakeAffine && irq >= 0 && irq < cpu_.slots())
    cpu_.place_wakeup(*this, cpu_.holder(irq), irq, false);
}

// The completion's interrupt lands on one CPU. If a process runs there, the handler (and in a VM
// the host's work on that vCPU) takes its time before the waiter is woken; the process stalls for
// it, so the stall is added to what it has accrued, and it shows as that process's busy time.
void Proc::interrupt_busy_cpu()
{
  const double cost = cpu_.params().busy_io_interrupt;
  if (cost <= 0) return;
  Proc* holder = cpu_.holder(cpu_.params().io_interrupt_cpu);
  if (holder == nullptr || holder == this) return;
  cpu_.note_busy_interrupt();
  holder->stall(cost);
  lookahead::sleep_until(now() + cost);
}

// A timer or a device ends this wait, not a process; a wake() that came meanwhile is for the
// next sleep.
void Proc::end_device_wait()
{
  running                 = this;
  const int pending_waker = waker_slot_;
  waker_slot_             = -1;
  resume();
  waker_slot_ = pending_waker;
  set_event(kCpu);
}

void Proc::set_event(WaitEventId event)
{
  close_interval(now());
  event_ = event;
}

// Adds the time since the last transition, up to t, to the current wait event and state.
void Proc::close_interval(double t)
{
  double elapsed = std::max(0.0, t - event_since_);
  if (event_ == kCpu) {
    // System-call time inside this interval is already counted under its own wait event.
    const double moved = std::min(elapsed, syscall_seconds_);
    elapsed -= moved;
    syscall_seconds_ -= moved;
  }
  times_.add(event_, active_, elapsed);
  event_since_ = std::max(event_since_, t);
}

// The state changes when the process gets there: at its local time, after its accrued work.
void Proc::set_active(bool active)
{
  if (active == active_) return;
  active_changed_at_ = local_time();
  close_interval(active_changed_at_);
  active_ = active;
}

WaitEventId Proc::wait_event_at(double t) const
{
  if (event_ != kCpu) return event_;
  for (const SyscallSpan& s : syscalls_)
    if (t >= s.from && t < s.to) return s.event;
  return kCpu;
}

void Proc::settle_wait_times()
{
  set_event(event_);
}

void Proc::reset_wait_times()
{
  event_since_     = now();
  syscall_seconds_ = 0;
  times_.clear();
}

} // namespace sim
