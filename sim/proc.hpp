/* A simulated operating-system process (a PostgreSQL backend, the WAL writer, a pgbench thread).
 *
 * Each Proc is driven by one SimGrid actor and owns a semaphore, as each PGPROC owns one: a
 * process that must wait sleeps on it and whoever releases it wakes it. CPU work is accrued and
 * simulated lazily, so consecutive pieces of work cost one simulated sleep: a model calls work()
 * for costs and flush() before anything other processes can observe (taking a lock, publishing
 * an LSN). Waiting gives up the CPU; waking needs a CPU again, through the run queue.
 */
#pragma once

#include "sim/cache_level.hpp"
#include "sim/wait_events.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <list>
#include <string>
#include <vector>

namespace sim {

class Cpu;
class LWLock;

class Proc {
public:
  Proc(std::string name, int id, Cpu& cpu);
  Proc(const Proc&)            = delete;
  Proc& operator=(const Proc&) = delete;

  const std::string& name() const { return name_; }
  int id() const { return id_; }
  Cpu& cpu() const { return cpu_; }
  /// The hardware thread this process runs on, or last ran on (-1 before it first runs).
  int slot() const { return slot_; }
  bool on_cpu() const { return on_cpu_; }

  /// Accrues CPU work, in nanoseconds at the reference clock.
  void work(double ref_ns) { pending_work_ += ref_ns; }
  /// Accrues time that keeps the CPU busy without being work at a clock (waiting for a cache
  /// line, spinning), in seconds.
  void stall(double seconds) { pending_stall_ += seconds; }
  /// Gets a CPU if the process has none and simulates the accrued work on it.
  void flush();
  /// flush() if the accrued work would take more than `lag` seconds: before reading shared state
  /// that others change faster than a whole flush interval would notice.
  void catch_up(double lag);
  /// Simulated time at which this process's accrued work will be done.
  double local_time() const;
  /// Seconds that ref_ns of work takes on this process's CPU now.
  double seconds_for(double ref_ns) const;
  /// Time in a system call, on the CPU but reported under a wait event (pwrite: IO:WALWrite).
  void syscall(double seconds, WaitEventId event);
  /// A system call timed as PostgreSQL times it (INSTR_TIME_SET_CURRENT before and after, for
  /// track_wal_io_timing): the work accrued before it runs first, then the call, and a preemption
  /// that fell due meanwhile is taken on the way out, as the kernel reschedules on its return to
  /// user mode. Returns the elapsed time, run-queue wait included.
  double timed_syscall(double seconds, WaitEventId event);

  /// Gives up the CPU and sleeps until wake(). Spurious returns are possible: callers recheck.
  void sleep(WaitEventId event);
  /// As sleep(), with a timeout; false when the timeout expired without a wake().
  bool sleep_for(double timeout, WaitEventId event);
  /// Gives up the CPU for a known time (I/O, a network hop).
  void block_until(double when, WaitEventId event);
  /// Gives up the CPU until a device request completes at `when` (block_until), and longer if it
  /// completes while every CPU is busy in a virtual machine (CpuParams::busy_io_delay).
  void await_io(double when, WaitEventId event);
  /// Gives up the CPU until another process has set when (from -1 to a time) and woken this one,
  /// and then until that time: an I/O whose completion only a kernel thread's dispatch settles
  /// (delayed as await_io's).
  void block_until_told(const double& when, WaitEventId event);
  /// Wakes this process if it sleeps; a wake-up of a running process is kept for its next sleep.
  /// Called by the running process (the waker), whose CPU decides what the wake-up costs; it
  /// flushes first, since the wake-up takes effect at the engine's clock, not its own time. sync
  /// says the waker is about to sleep (a message sent on a socket, WF_SYNC): with per-CPU run
  /// queues the woken process may then wait on the waker's CPU rather than on its own.
  void wake(bool sync = false);
  /// wake(true) for a waker that sleeps next: the woken process is in the run queue before the
  /// waker leaves its CPU, so that it can be the one to get that CPU (a kernel worker at nice -20
  /// handed work by the process that now waits for it).
  void wake_before_sleeping();
  /// The process ends: its accrued work is simulated and its CPU given up.
  void exit();

  /// The bytes this process touches again each time it runs (0: its cache misses after a
  /// switch are not modelled): what it must refill when others pushed them out of the cache.
  void set_working_set(double bytes) { working_set_ = bytes; }
  /// The pages of shared memory this process touches each time it runs, each needing an address
  /// translation that others' pages push out (0: not modelled).
  void set_translation_set(double pages) { translation_set_ = pages; }
  /// A kernel thread borrows the address space of whatever ran before it (no switch of page tables).
  void set_kernel_thread() { address_space_ = 0; }
  /// A thread of another process's (pgbench -j): the two share one address space.
  void share_address_space(Proc& process) { address_space_owner_ = &process; }
  double footprint(Footprint f) const
  {
    return f == Footprint::WorkingSet       ? working_set_
           : f == Footprint::TranslationSet ? translation_set_
                                            : address_space_;
  }
  /// The hardware threads this process may run on, as taskset sets them (empty: all).
  void set_allowed_cpus(const std::vector<int>& slots);
  bool allowed_on(int slot) const { return allowed_.empty() || allowed_[static_cast<std::size_t>(slot)] != 0; }
  /// A kernel worker at nice -20 (a WQ_HIGHPRI kworker): its weight is so far above a normal
  /// process's that the fair scheduler runs it before any of them waiting for a CPU, and the
  /// little CPU it uses does not move their shares.
  void set_high_priority() { high_priority_ = true; }

  /// pg_stat_activity's state: whether the process counts as 'active' for wait-event shares.
  void set_active(bool active);
  bool active() const { return active_; }
  WaitEventId wait_event() const { return event_; }
  /// What another process reading pg_stat_activity at time t sees. A running process's state and
  /// system calls change at its local time, which may lie after t while its accrued work is still
  /// being simulated, so the state at t can be the one before the latest change.
  bool active_at(double t) const { return t < active_changed_at_ ? !active_ : active_; }
  WaitEventId wait_event_at(double t) const;
  const WaitTimes& wait_times() const { return times_; }
  /// Adds time up to now into the wait-time totals and starts new ones at now.
  void reset_wait_times();
  void settle_wait_times();

  // State owned by sim/lwlock.cpp, kept here as PGPROC keeps it (lwWaiting, held_lwlocks).
  bool lw_waiting           = false;
  std::uint8_t lw_wait_mode = 0;
  std::vector<const LWLock*> held_lwlocks;
  /// State owned by the CPU run queue: set when the scheduler hands this process a slot.
  bool granted = false;

private:
  friend class Cpu;
  void take_cpu();
  void yield_cpu();
  void preemption_point();
  void wait_for_grant(bool keep_wakes);
  void grant();
  void signal(bool sync, bool grant);
  void give_up_cpu();
  void resume();
  void end_device_wait();
  void deliver_io_completion();
  void interrupt_busy_cpu();
  void run(double seconds);
  void set_event(WaitEventId event);
  void close_interval(double t);
  bool park(double timeout);

  std::string name_;
  int id_;
  Cpu& cpu_;
  simgrid::s4u::SemaphorePtr sem_;
  int slot_           = -1;
  bool on_cpu_        = false;
  double slice_left_  = 0;
  double chunk_since_ = -1; // engine time the chunk of CPU time now running began (-1: none)
  // Kept by the Cpu run queue: CPU time used as CFS counts it, or EEVDF's virtual runtime, lag
  // (what the process was owed when it left the queue) and virtual deadline.
  double vruntime_          = 0;
  double vlag_              = 0;
  double deadline_          = 0;
  bool placed_              = false;
  int rq_                   = 0; // the run queue it waits in or last ran from
  double pending_work_      = 0;
  double pending_stall_     = 0;
  double pending_idle_      = 0; // idle-exit latency before the accrued work: not CPU-busy
  bool wake_issued_         = false;
  bool active_              = false;
  double active_changed_at_ = 0; // the local time of the latest set_active change
  WaitEventId event_        = kCpu;
  double event_since_       = 0;
  double syscall_seconds_   = 0;     // accrued system-call time not yet taken off the CPU time
  bool parked_              = false; // asleep on (or about to sleep on) the semaphore
  bool wake_pending_        = false; // woken while not parked
  int waker_slot_           = -1;    // where the process that woke this one ran (-1: a timeout)
  bool waker_sync_          = false; // and whether that wake-up was WF_SYNC
  int wake_target_          = -1;    // where WakeAffine placed the pending wake-up (-1: previous)
  // record_wakee()'s count of changes of whom this process wakes, halved every second.
  unsigned wakee_flips_    = 0;
  const Proc* last_wakee_  = nullptr;
  double flips_decayed_at_ = 0;
  int kind_                = 0;       // Cpu::kind_of(name_), for its switch counts
  Proc* preempt_for_       = nullptr; // a woken process this one must give its CPU to (Cpu-owned)
  bool keep_wakes_         = false;   // waiting for a CPU, wake-ups meant for a later sleep kept
  bool missed_wake_        = false;   // such a wake-up came meanwhile
  // Owned by the Cpu: the working set, and where each cache level last held it (the core's
  // private cache, the socket's shared one).
  bool high_priority_ = false;
  double working_set_ = 0;
  CacheResidence in_private_cache_;
  CacheResidence in_shared_cache_;
  double translation_set_ = 0;
  CacheResidence in_translations_;
  double address_space_      = 1;
  Proc* address_space_owner_ = nullptr; // the process whose address space this thread runs in
  CacheResidence in_address_spaces_;
  double off_cpu_since_ = 0;  // when it last gave up a CPU
  std::vector<char> allowed_; // by slot; empty: every slot
  WaitTimes times_;
  struct SyscallSpan {
    double from, to;
    WaitEventId event;
  };
  std::vector<SyscallSpan> syscalls_; // accrued system calls that may not have ended yet
};

} // namespace sim
