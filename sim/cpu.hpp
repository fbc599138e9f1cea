/* The machine's processors, as an operating-system scheduler sees them.
 *
 * SimGrid's max-min CPU sharing gets slow with hundreds of concurrent executions, so walsim
 * models cores as a counted resource with an explicit FIFO run queue instead: a process needs a
 * hardware thread ("slot") to do CPU work; when every slot is taken it waits in the run queue; a
 * process that uses up its time slice while others wait goes back to the queue. Thus a lock
 * holder can be descheduled while others wait for it, which is what matters at 128-256 clients.
 * The queue is ordered as Linux orders it: by CFS's virtual runtime (CPU time used), with the
 * credit CFS gives a process waking from sleep, so that a CPU-hungry process (a pgbench thread
 * serving many clients) waits behind processes that sleep often (backends); or, as EEVDF does
 * (Linux 6.6 and later), by virtual deadline among the processes owed CPU time, where a waking
 * process keeps the lag it left with and gets no credit for having slept. A FIFO queue can be
 * chosen instead. The queue can be one for the machine or one per hardware thread, as Linux keeps
 * them: then a process waits where it last ran (or, woken by a socket message, where its waker
 * runs), and a CPU left with nothing to run pulls a process that is no longer cache-hot from the
 * longest other queue. Work is measured in nanoseconds at a reference clock; a slot runs it at
 * the machine's clock, slower while its SMT sibling is busy.
 */
#pragma once

#include "sim/cache_level.hpp"

#include <cstdint>
#include <list>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace sim {

class Proc;

/// How the run queue orders processes waiting for a CPU.
enum class Scheduler { Cfs, Eevdf, Fifo };
/// One run queue for the machine, or one per hardware thread as Linux keeps them.
enum class RunQueues { Global, PerCpu };
/// Where a woken process runs with per-CPU run queues: on an idle CPU if there is one (Linux's
/// select_idle_sibling() over a last-level cache the CPUs share); always on the one it last ran
/// on; or as Linux places it when every CPU is a cache domain of its own: on the one it last ran
/// on unless wake_affine() chooses the waker's (WakeAffine).
enum class WakePlacement { IdleCpu, PreviousCpu, WakeAffine };

struct CpuParams {
  int sockets          = 1;
  int cores_per_socket = 2;
  int threads_per_core = 1;
  double clock_hz      = 3e9;
  double reference_hz  = 3e9;
  /// Work two busy SMT siblings do together, relative to one thread alone (1.0 = no gain).
  double smt_throughput = 1.25;
  /// CPU time a process runs before it must let a waiting one run (with EEVDF: the base slice,
  /// each request's size).
  double time_slice    = 3e-3;
  Scheduler scheduler  = Scheduler::Cfs;
  RunQueues run_queues = RunQueues::Global;
  /// CFS's credit to a waking process: its virtual runtime is set no lower than the queue's
  /// minimum less this (sched_latency / 2 with GENTLE_FAIR_SLEEPERS).
  double sleeper_credit = 6e-3;
  /// Wake-up preemption: a woken process that finds no idle CPU may preempt the process running
  /// on the CPU it last ran on. CFS (check_preempt_wakeup()): when that one's virtual runtime is
  /// ahead of its own by more than wakeup_granularity. EEVDF (check_preempt_wakeup_fair()): when
  /// that one is no longer eligible or has run its request, and the woken one is the pick.
  bool wakeup_preemption    = false;
  double wakeup_granularity = 0;
  /// Delay before a process woken onto an idle CPU runs (idle-state exit, IPI, VM exit); the
  /// CPU is not busy meanwhile.
  double idle_wakeup = 20e-6;
  /// CPU time the kernel spends bringing an idle CPU back to run a woken process.
  double idle_wakeup_cpu = 5e-6;
  /// CPU time to switch a busy CPU from one process to another.
  double context_switch = 2e-6;
  /// CPU time a wake-up costs beyond its context switch when no CPU is idle: the reschedule
  /// interrupt to a busy CPU and, in a virtual machine, the exits it causes. Charged to the woken
  /// process when it gets a CPU.
  double busy_wakeup_cpu = 0;
  /// In a virtual machine whose host serves the virtual devices on the physical CPUs that run the
  /// vCPUs, the longest a device request that completes while every CPU is busy waits to reach
  /// the guest: until a vCPU goes idle (the host's device thread then runs in its place), at
  /// most this long (the host preempts a vCPU for it). 0 on bare metal.
  double busy_io_delay = 0;
  /// The hardware thread that takes the devices' completion interrupts (a virtio queue's interrupt
  /// is bound to one vCPU), or -1: interrupts not modelled. A slot the model's CPUs do not include
  /// stands for a CPU that runs none of the simulated processes, so its interrupts cost them nothing.
  int io_interrupt_cpu = -1;
  /// What a completion takes on that CPU while it runs a process, in a virtual machine: the
  /// interrupt's handling in the guest and the host's work on that vCPU's physical CPU. The process
  /// makes no progress meanwhile, though the guest counts it busy; the completion reaches its waiter
  /// after it. An idle CPU's part is the idle wake-up's.
  double busy_io_interrupt = 0;
  /// Cache-line transfer costs for atomic operations.
  double line_hit    = 1e-9;   // the line is already in this core's cache
  double line_local  = 50e-9;  // from another core of the same socket
  double line_remote = 150e-9; // from another socket
  /// Each operation already queued on a contended line adds this fraction of a transfer.
  double line_contention = 0.1;
  /// Misses to consecutive lines that a core overlaps (memory-level parallelism) when copying.
  double line_parallelism = 4;
  /// A core's private cache (bytes; 0: not modelled) and the CPU time to bring a byte of a
  /// process's working set back into it (from the shared cache) after others evicted it.
  double cache_size      = 0;
  double refill_per_byte = 0;
  /// The last-level cache a socket's cores share, as much of it as these processes get (bytes; 0:
  /// not modelled; needs cache_size), and the CPU time to bring a byte lost from both caches back
  /// from memory, beyond what its refill from the shared cache costs.
  double shared_cache_size      = 0;
  double shared_refill_per_byte = 0;
  /// The address translations a socket keeps for its processes' shared-memory pages, however it
  /// keeps them (TLBs, page-walk caches, a hypervisor's shadow page tables), in pages (0: not
  /// modelled), and the CPU time to re-create one that others' pages pushed out.
  double translation_entries = 0;
  double translation_refault = 0;
  /// The address spaces a hardware thread keeps ready, least recently used out (a hypervisor's
  /// cached shadow page-table roots: KVM keeps the current one and three more, and with page-table
  /// isolation each process has two), in processes (0: not modelled), and the CPU time to switch to
  /// a process whose address space it no longer keeps.
  double address_spaces       = 0;
  double address_space_reload = 0;
  /// With a cache modelled, or with per-CPU run queues, a freed CPU takes a waiting process from
  /// elsewhere only if it left its CPU at least this long ago (Linux's sysctl_sched_migration_cost:
  /// a task that ran more recently is cache-hot, and the balancer leaves it where it waits).
  double migration_cost = 0.5e-3;
  /// With per-CPU run queues: where a woken process goes (WakePlacement). With PreviousCpu an idle
  /// CPU gets work only by balancing: when it goes idle (newidle balance, cache-cold processes
  /// only) and at every scheduler tick while it stays idle (the nohz idle balance a busy CPU's
  /// tick kicks), which takes a cache-hot process too once more than cache_nice_tries ticks in a
  /// row found only hot ones (can_migrate_task() with sched_domain.nr_balance_failed).
  /// WakeAffine balances as PreviousCpu does.
  WakePlacement wake_placement = WakePlacement::IdleCpu;
  double balance_tick          = 4e-3; // 1 / CONFIG_HZ
  int cache_nice_tries         = 1;    // sd_init()'s value for every domain below NUMA
};

class Cpu {
public:
  explicit Cpu(const CpuParams& params);

  const CpuParams& params() const { return params_; }
  int slots() const { return static_cast<int>(slots_.size()); }
  /// Where a slot (0 to slots() - 1) is. Looked up, not divided out: every flush and every atomic
  /// asks, and an integer division was a visible part of their cost.
  int socket_of(int slot) const { return places_[static_cast<std::size_t>(slot)].socket; }
  int core_of(int slot) const { return places_[static_cast<std::size_t>(slot)].core; }

  /// Gives proc a free slot, preferring the one it last ran on, then an idle core. False if none.
  /// woken says it comes back from sleep (where the scheduler places it anew).
  bool try_take(Proc& proc, bool woken);
  /// Queues proc for a CPU; woken says it comes back from sleep (and gets CFS's sleeper credit,
  /// or EEVDF's placement by lag). The slot arrives with proc.granted set and a wake().
  void enqueue(Proc& proc, bool woken);
  /// Accounts seconds that proc ran.
  void charge(Proc& proc, double seconds);
  /// Frees proc's slot, handing it to the first process in the run queue if any. preempted says
  /// the process still wanted to run (an involuntary switch, as /proc/PID/status counts them).
  void release(Proc& proc, bool preempted = false);
  bool has_waiters() const { return waiting_ > 0; }
  /// Whether a process waiting in a run queue must wake at each scheduler tick for the idle
  /// balance (WakePlacement::PreviousCpu), and when the next tick after t is.
  bool balances_at_ticks() const { return params_.wake_placement != WakePlacement::IdleCpu; }
  /// With WakePlacement::WakeAffine: chooses, at the moment of the wake-up, where wakee will run.
  /// waker is the process running on this_cpu that wakes it (nullptr: an interrupt on an idle
  /// CPU); this_cpu -1 for a timer, which fires where the sleeper last ran.
  void place_wakeup(Proc& wakee, Proc* waker, int this_cpu, bool sync);
  double next_tick(double t) const;
  /// The idle balance of the tick at time tick: each idle hardware thread pulls a process from
  /// the longest run queue. Runs once per tick, whichever waiting process gets there first; one
  /// it pulls is granted the CPU (caller's own grant is only marked, as it is running).
  void tick_balance(Proc& caller, double tick);
  /// Whether a process that used its time slice should let a queued one run.
  bool should_yield(Proc& proc);
  /// Whether a process asked to give way to a woken one (wake-up preemption) still should: the
  /// woken process still waits for a CPU.
  bool preemption_due(const Proc& proc);
  std::size_t run_queue_length() const { return waiting_; }
  /// Every hardware thread is held by a process.
  bool all_busy() const { return free_slots_ == 0; }
  /// The process holding a slot, or nullptr (idle, or no such slot).
  Proc* holder(int slot) const
  {
    return slot >= 0 && slot < slots() ? slots_[static_cast<std::size_t>(slot)].holder : nullptr;
  }
  /// Some process may run on only some hardware threads (Proc::set_allowed_cpus()).
  void note_affinity() { pinned_ = true; }
  /// Processes running or waiting on a hardware thread (its run queue's nr_running).
  int nr_running(int slot) const;
  /// A device completion interrupted a busy CPU (CpuParams::busy_io_interrupt).
  void note_busy_interrupt() { busy_interrupts_++; }
  /// Completions that interrupted a busy CPU since the last reset_stats().
  std::uint64_t busy_interrupts() const { return busy_interrupts_; }
  /// How many times a hardware thread went idle (a release that left it free), since the start.
  std::uint64_t idle_entries() const { return idle_entries_; }

  /// Seconds that `ref_ns` of work takes on slot now, given whether its SMT siblings are busy.
  /// (Inline, as transfer(): every flush and every atomic asks.)
  double duration(int slot, double ref_ns) const
  {
    double seconds = ref_ns * 1e-9 * params_.reference_hz / params_.clock_hz;
    if (busy_per_core_[static_cast<std::size_t>(core_of(slot))] > 1) seconds *= smt_slowdown_;
    return seconds;
  }
  /// Cost of moving a cache line last written from slot `from` to slot `to` (-1: never written).
  double transfer(int from, int to) const
  {
    if (from < 0 || to < 0 || core_of(from) == core_of(to)) return params_.line_hit;
    return socket_of(from) == socket_of(to) ? params_.line_local : params_.line_remote;
  }

  /// Sum over slots of the seconds they were held since the last reset_stats().
  double busy_seconds(double now) const;
  /// Context switches since the last reset_stats(), as Linux counts them (/proc/stat ctxt): a CPU
  /// passing from one process to another, or from a process to idle, or from idle to a process.
  std::uint64_t switches() const { return switches_; }
  /// The same switches seen from the processes that left a CPU, by kind of process (the first word
  /// of its name: "backend", "pgbench", "walwriter", ...), as /proc/PID/status counts them.
  struct SwitchCounts {
    std::uint64_t voluntary   = 0; // the process went to sleep
    std::uint64_t involuntary = 0; // the process was preempted
    std::uint64_t wakeups     = 0; // woken from a sleep, and
    double wakeup_delay       = 0; // the seconds from those wake-ups to running (perf sched latency)
  };
  std::map<std::string, SwitchCounts> switches_by_kind() const;
  /// Busy CPU seconds by kind of process since the last reset_stats(), as /proc/PID/stat's utime
  /// and stime add up: what each kind of process costs the machine.
  std::map<std::string, double> busy_seconds_by_kind(double now) const;
  /// A process of kind, woken from a sleep, ran `delay` seconds later.
  void note_wakeup(int kind, double delay)
  {
    auto& counts = switches_of_kind_[static_cast<std::size_t>(kind)];
    counts.wakeups++;
    counts.wakeup_delay += delay;
  }
  /// The kind a process's switches and CPU time are counted under.
  int kind_of(const std::string& process_name);
  /// Time a slot was held without being busy (a CPU leaving its idle state), by a process of kind.
  void discount_busy(double seconds, int kind)
  {
    busy_seconds_ -= seconds;
    busy_of_kind_[static_cast<std::size_t>(kind)] -= seconds;
  }
  /// Processes that ran on another hardware thread than the one they last ran on, since the last
  /// reset_stats() (perf's cpu-migrations).
  std::uint64_t migrations() const { return migrations_; }
  /// Running processes that gave their CPU to a woken one, since the last reset_stats().
  std::uint64_t wakeup_preemptions() const { return wakeup_preemptions_; }
  /// CPU time spent refilling private caches since the last reset_stats().
  double refill_seconds() const { return refill_seconds_; }
  /// CPU time spent re-creating address translations since the last reset_stats().
  double translation_seconds() const { return translation_seconds_; }
  /// CPU time spent switching to address spaces a hardware thread no longer kept, since the last
  /// reset_stats().
  double address_space_seconds() const { return address_space_seconds_; }

  void reset_stats(double now);

private:
  using RunQueue = std::set<std::tuple<double, std::uint64_t, Proc*>>; // (order key, arrival, process)
  // A run queue and what its scheduler keeps for it: CFS's minimum virtual runtime; EEVDF's sum of
  // the virtual runtimes of the processes on its CPUs or waiting in it, their number, and the
  // average when the last of them left.
  struct Queue {
    RunQueue waiting;
    double min_vruntime = 0;
    double vsum         = 0;
    int runnable        = 0;
    double idle_avg     = 0;
  };
  Queue& queue_of(int slot)
  {
    return queues_[params_.run_queues == RunQueues::PerCpu ? static_cast<std::size_t>(slot) : 0];
  }
  void assign(Proc& proc, int slot, double now);
  double refill(Proc& proc, int slot);
  double retranslate(Proc& proc, int slot);
  double reload_address_space(Proc& proc, int slot);
  RunQueue::const_iterator next_for(const Queue& q, int slot, double now) const;
  Proc* take_next(int slot, double now);
  Proc* pull_from_others(int slot, double now, bool allow_hot);
  bool cache_allows(const Proc& proc, int slot, double now) const;
  bool eligible(double avg, const Proc& proc) const;
  double avg_vruntime(const Queue& q) const;
  void place(Queue& q, Proc& proc, bool woken);
  void add_runnable(Queue& q, Proc& proc);
  void remove_runnable(Queue& q, Proc& proc);
  int home_queue(const Proc& proc, bool woken) const;
  int queue_index(int slot) const;
  void move_to(Proc& proc, int index);
  int pick_free_slot(const Proc& proc, int preferred) const;
  int wake_affine(int this_cpu, int prev, bool sync) const;
  void check_preempt_wakeup(Proc& woken, int index);
  void check_preempt_wakeup_fair(Proc& woken, int index);
  Proc* preemption_target(const Proc& woken, int index) const;
  double live_vruntime(const Proc& proc) const;

  struct Slot {
    Proc* holder      = nullptr;
    double held_since = 0;
  };
  struct Place {
    int core   = 0;
    int socket = 0;
  };
  CpuParams params_;
  std::vector<Slot> slots_;
  std::vector<Place> places_; // by slot
  std::vector<int> busy_per_core_;
  std::vector<Queue> queues_; // one, or one per slot
  std::size_t waiting_ = 0;   // processes in all run queues
  CacheLevel private_cache_;  // by core
  CacheLevel shared_cache_;   // by socket
  CacheLevel translations_;   // by socket
  CacheLevel address_spaces_; // by hardware thread
  double translation_seconds_       = 0;
  double address_space_seconds_     = 0;
  double refill_seconds_            = 0;
  std::uint64_t migrations_         = 0;
  std::uint64_t wakeup_preemptions_ = 0;
  std::uint64_t arrivals_           = 0;
  int free_slots_                   = 0;
  bool pinned_                      = false; // some process has an affinity
  std::uint64_t idle_entries_       = 0;
  std::uint64_t busy_interrupts_    = 0;
  long long last_tick_              = -1; // the latest tick whose idle balance ran
  int balance_failed_               = 0;  // ticks in a row whose balance found only hot processes
  double busy_seconds_              = 0;
  std::uint64_t switches_           = 0;
  std::vector<std::string> kinds_;
  std::vector<SwitchCounts> switches_of_kind_; // by kind_of()
  std::vector<double> busy_of_kind_;           // by kind_of()
  double smt_slowdown_ = 1;
  double stats_since_  = 0;
};

} // namespace sim
