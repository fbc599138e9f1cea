/* CPU slots and the run queue: see cpu.hpp for the model. */
#include "sim/cpu.hpp"

#include "sim/clock.hpp"
#include "sim/proc.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sim {

Cpu::Cpu(const CpuParams& params)
    : params_(params),
      private_cache_(params.cache_size, params.sockets * params.cores_per_socket, Footprint::WorkingSet),
      shared_cache_(params.cache_size > 0 ? params.shared_cache_size : 0, params.sockets, Footprint::WorkingSet),
      translations_(params.translation_entries, params.sockets, Footprint::TranslationSet),
      address_spaces_(params.address_spaces, params.sockets * params.cores_per_socket * params.threads_per_core,
                      Footprint::AddressSpace, Replacement::LeastRecentlyUsed)
{
  if (params.sockets < 1 || params.cores_per_socket < 1 || params.threads_per_core < 1 || params.clock_hz <= 0 ||
      params.reference_hz <= 0 || params.smt_throughput <= 0)
    throw std::invalid_argument("Cpu: invalid parameters");
  const int cores = params.sockets * params.cores_per_socket;
  slots_.resize(static_cast<std::size_t>(cores * params.threads_per_core));
  for (int slot = 0; slot < slots(); slot++)
    places_.push_back(
        Place{slot / params.threads_per_core, slot / (params.cores_per_socket * params.threads_per_core)});
  busy_per_core_.assign(static_cast<std::size_t>(cores), 0);
  free_slots_ = slots();
  queues_.resize(params.run_queues == RunQueues::PerCpu ? static_cast<std::size_t>(slots()) : 1);
  // Busy SMT siblings share one core's throughput: each runs at smt_throughput / threads.
  smt_slowdown_ = params.threads_per_core > 1 ? params.threads_per_core / params.smt_throughput : 1.0;
}

int Cpu::pick_free_slot(const Proc& proc, int preferred) const
{
  if (free_slots_ == 0) return -1;
  if (preferred >= 0 && slots_[static_cast<std::size_t>(preferred)].holder == nullptr && proc.allowed_on(preferred))
    return preferred;
  // Like Linux's select_idle_sibling: a wholly idle core first (near the last one), then any thread.
  const int n     = slots();
  const int start = preferred >= 0 ? preferred : 0;
  int any         = -1;
  for (int k = 0; k < n; k++) {
    const int s = (start + k) % n;
    if (slots_[static_cast<std::size_t>(s)].holder != nullptr || !proc.allowed_on(s)) continue;
    if (busy_per_core_[static_cast<std::size_t>(core_of(s))] == 0) return s;
    if (any < 0) any = s;
  }
  return any;
}

// What a process pays, when it gets a CPU, to bring back the part of its working set that other
// processes pushed out of the core's private cache since it last ran there (all of it after a
// move to another core); and, for what the socket's shared cache lost of that part too, to bring
// it from memory.
double Cpu::refill(Proc& proc, int slot)
{
  const double set = proc.working_set_;
  if (!private_cache_.enabled() || set <= 0) return 0;
  const double lost = private_cache_.lost_fraction(proc, proc.in_private_cache_, core_of(slot));
  double seconds    = set * lost * params_.refill_per_byte;
  if (shared_cache_.enabled())
    seconds += set * lost * shared_cache_.lost_fraction(proc, proc.in_shared_cache_, socket_of(slot)) *
               params_.shared_refill_per_byte;
  refill_seconds_ += seconds;
  return seconds;
}

// What a process pays, when it gets a CPU, to re-create the translations of its pages that others'
// pages pushed out since it last ran. They survive in the socket, whichever core it runs on: what
// keeps them is shared there (a hypervisor's shadow page tables, the caches holding page tables).
double Cpu::retranslate(Proc& proc, int slot)
{
  const double set = proc.translation_set_;
  if (!translations_.enabled() || set <= 0) return 0;
  const double seconds =
      set * translations_.lost_fraction(proc, proc.in_translations_, socket_of(slot)) * params_.translation_refault;
  translation_seconds_ += seconds;
  return seconds;
}

// What a process pays, when it gets a hardware thread, if that thread no longer keeps its address
// space ready: in a guest under shadow paging, the hypervisor loads the process's page-table roots
// again (KVM's kvm_mmu_new_pgd() missing its cached roots).
double Cpu::reload_address_space(Proc& proc, int slot)
{
  if (!address_spaces_.enabled() || proc.address_space_ <= 0) return 0;
  Proc& owner = proc.address_space_owner_ ? *proc.address_space_owner_ : proc;
  const double seconds =
      address_spaces_.lost_fraction(owner, owner.in_address_spaces_, slot) * params_.address_space_reload;
  address_space_seconds_ += seconds;
  return seconds;
}

void Cpu::assign(Proc& proc, int slot, double now)
{
  if (proc.slot_ >= 0 && proc.slot_ != slot) migrations_++;
  auto& s      = slots_[static_cast<std::size_t>(slot)];
  s.holder     = &proc;
  s.held_since = now;
  busy_per_core_[static_cast<std::size_t>(core_of(slot))]++;
  free_slots_--;
  proc.slot_   = slot;
  proc.on_cpu_ = true;
  proc.stall(refill(proc, slot) + retranslate(proc, slot) + reload_address_space(proc, slot));
}

bool Cpu::try_take(Proc& proc, bool woken)
{
  const bool placed = woken && proc.slot_ >= 0 && params_.run_queues == RunQueues::PerCpu &&
                      params_.wake_placement != WakePlacement::IdleCpu;
  const int target = proc.wake_target_ >= 0 ? proc.wake_target_ : proc.slot_;
  const int slot   = !placed                                                      ? pick_free_slot(proc, proc.slot_)
                     : slots_[static_cast<std::size_t>(target)].holder == nullptr ? target
                                                                                  : -1;
  if (slot < 0) return false;
  move_to(proc, queue_index(slot));
  if (params_.scheduler == Scheduler::Eevdf) {
    Queue& q = queue_of(slot);
    place(q, proc, woken);
    add_runnable(q, proc);
  }
  switches_++; // from idle
  assign(proc, slot, now());
  return true;
}

// With per-CPU run queues a process waits where it last ran, as Linux's select_task_rq_fair()
// leaves a woken task on its previous CPU when no CPU is idle; a process that never ran joins the
// shortest queue.
int Cpu::home_queue(const Proc& proc, bool woken) const
{
  if (params_.run_queues == RunQueues::Global) return 0;
  // wake_affine_idle(): a synchronous wake-up from a CPU where only the waker runs goes there.
  // Not seen where every CPU is a cache domain of its own: perf's sched_wakeup events there show
  // a process woken by a socket message on the CPU it last ran on, the waker's idle or not.
  if (woken && params_.wake_placement == WakePlacement::IdleCpu && proc.waker_sync_ && proc.waker_slot_ >= 0 &&
      proc.allowed_on(proc.waker_slot_) && queues_[static_cast<std::size_t>(proc.waker_slot_)].waiting.empty())
    return proc.waker_slot_;
  if (woken && proc.wake_target_ >= 0) return proc.wake_target_;
  if (proc.slot_ >= 0) return proc.slot_;
  int best = -1;
  for (int i = 0; i < static_cast<int>(queues_.size()); i++)
    if (proc.allowed_on(i) && (best < 0 || queues_[static_cast<std::size_t>(i)].waiting.size() <
                                               queues_[static_cast<std::size_t>(best)].waiting.size()))
      best = i;
  return best;
}

int Cpu::nr_running(int slot) const
{
  const int running = slots_[static_cast<std::size_t>(slot)].holder != nullptr ? 1 : 0;
  if (params_.run_queues != RunQueues::PerCpu) return running;
  return running + static_cast<int>(queues_[static_cast<std::size_t>(slot)].waiting.size());
}

// select_task_rq_fair() for a wake-up (Linux 6.18, kernel/sched/fair.c) on a machine whose CPUs
// share no cache, so that sd_llc_size is 1 and select_idle_sibling() has no sibling to search:
// the woken process goes back to the CPU it last ran on unless, the wake-up not being "wide",
// wake_affine() prefers the waker's. record_wakee() counts, for the waker, each change of whom it
// wakes (halved every second); wake_wide() calls a wake-up wide when both the waker and the
// woken have changed partners (with sd_llc_size 1: the smaller count is at least 1). The idle
// task, which an interrupt on an idle CPU runs in, wakes everyone: its count is taken as large.
void Cpu::place_wakeup(Proc& wakee, Proc* waker, int this_cpu, bool sync)
{
  constexpr unsigned kIdleTaskFlips = 1U << 20;
  const double now                  = sim::now();
  wakee.wake_target_                = -1;
  if (waker != nullptr) {
    if (now > waker->flips_decayed_at_ + 1.0) {
      waker->wakee_flips_ >>= 1;
      waker->flips_decayed_at_ = now;
    }
    if (waker->last_wakee_ != &wakee) {
      waker->last_wakee_ = &wakee;
      waker->wakee_flips_++;
    }
  }
  const int prev = wakee.slot_;
  if (prev < 0 || this_cpu < 0 || this_cpu == prev || !wakee.allowed_on(this_cpu)) return;
  const unsigned master = waker != nullptr ? waker->wakee_flips_ : kIdleTaskFlips;
  const bool wide       = std::min(master, wakee.wakee_flips_) >= 1;
  if (!wide) wakee.wake_target_ = wake_affine(this_cpu, prev, sync);
}

// wake_affine() with WA_IDLE, WA_WEIGHT and WA_BIAS (Linux 6.18). wake_affine_idle(): a
// synchronous wake-up from a CPU where only the waker runs goes there; else to the previous CPU
// if it is idle (an idle waker's CPU means an interrupt, which moves nobody where no cache is
// shared). wake_affine_weight(): else the waker's CPU if its load with the woken process (less
// the waker's own, when synchronous) is below the previous CPU's with imbalance_pct 117's half
// margin. PELT's load averages are taken as the processes running or waiting there now.
int Cpu::wake_affine(int this_cpu, int prev, bool sync) const
{
  const int this_nr = nr_running(this_cpu);
  if (sync && this_nr == 1) return this_cpu;
  if (nr_running(prev) == 0) return prev;
  const int this_eff = (this_nr - (sync ? 1 : 0) + 1) * 100;
  const int prev_eff = nr_running(prev) * (100 + (117 - 100) / 2) + (sync ? 1 : 0);
  return this_eff < prev_eff ? this_cpu : prev;
}

int Cpu::queue_index(int slot) const
{
  return params_.run_queues == RunQueues::PerCpu ? slot : 0;
}

// CFS's virtual runtimes are relative to their queue's minimum: a process changing queues keeps
// its distance to it (the normalisation of migrate_task_rq_fair()).
void Cpu::move_to(Proc& proc, int index)
{
  if (proc.rq_ == index) return;
  if (params_.scheduler == Scheduler::Cfs)
    proc.vruntime_ += queues_[static_cast<std::size_t>(index)].min_vruntime -
                      queues_[static_cast<std::size_t>(proc.rq_)].min_vruntime;
  proc.rq_ = index;
}

void Cpu::enqueue(Proc& proc, bool woken)
{
  proc.granted    = false;
  const int index = home_queue(proc, woken);
  Queue& q        = queues_[static_cast<std::size_t>(index)];
  double key      = 0;
  switch (params_.scheduler) {
  case Scheduler::Cfs:
    move_to(proc, index);
    if (proc.high_priority_) break;
    if (woken) proc.vruntime_ = std::max(proc.vruntime_, q.min_vruntime - params_.sleeper_credit);
    key = proc.vruntime_;
    if (woken && params_.wakeup_preemption) check_preempt_wakeup(proc, index);
    break;
  case Scheduler::Eevdf:
    proc.rq_ = index;
    if (proc.high_priority_) break;
    place(q, proc, woken);
    add_runnable(q, proc);
    key = proc.deadline_;
    if (woken && params_.wakeup_preemption) check_preempt_wakeup_fair(proc, index);
    break;
  case Scheduler::Fifo:
    proc.rq_ = index;
    break;
  }
  if (proc.high_priority_) key = -std::numeric_limits<double>::infinity();
  q.waiting.emplace(key, arrivals_++, &proc);
  waiting_++;
}

// CFS's check_preempt_wakeup() with wakeup_preempt_entity() (Linux 2.6.32-6.5): the woken process
// is placed on the CPU it last ran on (select_task_rq_fair() with no idle CPU; with per-CPU queues,
// the CPU whose queue it joined) and preempts what runs there when that is ahead of it in virtual
// runtime by more than the granularity. A process back from a long sleep, placed by the sleeper
// credit well behind the queue's minimum, thus preempts; one that slept briefly does not. The
// running process gives way at its next flush (resched_curr() only sets a flag, acted on at the
// next return to user space; the model's work between flushes is short), unless the woken process
// got another CPU meanwhile.
void Cpu::check_preempt_wakeup(Proc& woken, int index)
{
  Proc* curr = preemption_target(woken, index);
  if (curr == nullptr || curr->vruntime_ - woken.vruntime_ <= params_.wakeup_granularity) return;
  curr->preempt_for_ = &woken;
}

// The process running where the woken one is placed, if it could be asked to give way.
Proc* Cpu::preemption_target(const Proc& woken, int index) const
{
  int target = params_.run_queues == RunQueues::PerCpu ? index : woken.slot_;
  if (target < 0) target = woken.waker_slot_;
  if (target < 0 || !woken.allowed_on(target)) return nullptr;
  Proc* curr = slots_[static_cast<std::size_t>(target)].holder;
  if (curr == nullptr || curr == &woken || curr->preempt_for_ != nullptr || curr->high_priority_) return nullptr;
  return curr;
}

// EEVDF's check_preempt_wakeup_fair() (Linux 6.12-6.18; 6.6-6.11 the same for equal slices):
// preempt when __pick_eevdf() would now choose the woken process over the running one. With
// RUN_TO_PARITY the running one keeps its CPU while it is eligible and has not run its request
// (protect_slice(): equal slices make the protected span end at its deadline). Once it has
// overdrawn its share, which a waking process owed CPU time makes it do by pulling the average
// back, the pick is the eligible process with the earliest deadline. The running processes'
// virtual runtimes count what they have run of their current chunk, as update_curr() does.
void Cpu::check_preempt_wakeup_fair(Proc& woken, int index)
{
  Proc* curr = preemption_target(woken, index);
  if (curr == nullptr) return;
  const Queue& q     = queues_[static_cast<std::size_t>(index)];
  const double avg   = avg_vruntime(q);
  const double cv    = live_vruntime(*curr);
  const bool curr_ok = cv <= avg;
  if (curr_ok && cv < curr->deadline_) return;
  if (woken.vruntime_ > avg) return;
  if (curr_ok && curr->deadline_ <= woken.deadline_) return;
  for (const auto& entry : q.waiting) {
    const Proc* p = std::get<2>(entry);
    if (std::get<0>(entry) >= woken.deadline_) break; // in deadline order: none earlier beyond
    if (p != &woken && p->vruntime_ <= avg) return;   // an earlier eligible one is the pick
  }
  curr->preempt_for_ = &woken;
}

double Cpu::live_vruntime(const Proc& proc) const
{
  if (!proc.on_cpu_ || proc.chunk_since_ < 0) return proc.vruntime_;
  return proc.vruntime_ + std::max(0.0, sim::now() - proc.chunk_since_);
}

// avg_vruntime(), counting what the running processes of the queue have run of their current
// chunk, as update_curr() brings them up to date before the scheduler looks at the average.
double Cpu::avg_vruntime(const Queue& q) const
{
  if (q.runnable == 0) return q.idle_avg;
  double sum = q.vsum;
  for (std::size_t s = 0; s < slots_.size(); s++) {
    const Proc* p = slots_[s].holder;
    if (p != nullptr && !p->high_priority_ && &queues_[static_cast<std::size_t>(p->rq_)] == &q)
      sum += live_vruntime(*p) - p->vruntime_;
  }
  return sum / q.runnable;
}

bool Cpu::preemption_due(const Proc& proc)
{
  if (proc.preempt_for_ == nullptr || proc.preempt_for_->granted) return false;
  wakeup_preemptions_++;
  return true;
}

void Cpu::charge(Proc& proc, double seconds)
{
  if (proc.high_priority_) return;
  proc.vruntime_ += seconds;
  if (params_.scheduler == Scheduler::Eevdf) queue_of(proc.slot_).vsum += seconds;
}

// EEVDF's place_entity() (Linux 6.12-6.18, kernel/sched/fair.c) with PLACE_LAG,
// PLACE_DEADLINE_INITIAL, DELAY_DEQUEUE and DELAY_ZERO, for processes of equal weight. A process
// that left the queue owed CPU time comes back owed as much; one that had used more than its share
// stays behind until the queue's average catches up with it, then comes back level. Sleeping
// earns nothing, unlike CFS's sleeper credit. Each placement opens a request of one slice.
void Cpu::place(Queue& q, Proc& proc, bool woken)
{
  if (proc.high_priority_) return;
  if (proc.placed_ && !woken) return; // preempted: it keeps its place and its deadline
  const double avg = avg_vruntime(q);
  double request   = params_.time_slice;
  if (!proc.placed_) {
    proc.placed_   = true;
    proc.vruntime_ = avg;
    request /= 2;
  } else if (proc.vlag_ < 0) {
    proc.vruntime_ = std::max(proc.vruntime_, avg);
  } else {
    // Joining moves the average towards the newcomer: scale the lag so that it keeps it.
    const double lag = q.runnable > 0 ? proc.vlag_ * (q.runnable + 1) / q.runnable : proc.vlag_;
    proc.vruntime_   = avg - lag;
  }
  proc.deadline_ = proc.vruntime_ + request;
}

// entity_eligible(): owed CPU time, or even (lag >= 0).
bool Cpu::eligible(double avg, const Proc& proc) const
{
  if (proc.high_priority_) return true;
  return live_vruntime(proc) <= avg;
}

void Cpu::add_runnable(Queue& q, Proc& proc)
{
  if (proc.high_priority_) return;
  q.vsum += proc.vruntime_;
  q.runnable++;
}

// update_entity_lag(): the lag is kept within two requests (or a 4 ms tick, HZ=250).
void Cpu::remove_runnable(Queue& q, Proc& proc)
{
  if (proc.high_priority_) return;
  const double avg   = avg_vruntime(q);
  const double limit = std::max(2 * params_.time_slice, 4e-3);
  proc.vlag_         = std::clamp(avg - proc.vruntime_, -limit, limit);
  if (--q.runnable == 0) {
    q.idle_avg = avg;
    q.vsum     = 0; // no rounding residue carried into the next busy period
  } else {
    q.vsum -= proc.vruntime_;
  }
}

// Without a cache model where a process runs costs nothing, and the run queue is one queue for
// all CPUs. With one, a freed CPU passes over processes that are cache-hot on another CPU, as
// Linux's per-CPU run queues and its balancer's task_hot() do: those wait for their own CPU.
// With EEVDF the queue is in deadline order and the pick is the first process that is eligible
// (pick_eevdf()); if none is, the earliest deadline.
Cpu::RunQueue::const_iterator Cpu::next_for(const Queue& q, int slot, double now) const
{
  if (params_.cache_size <= 0 && params_.scheduler != Scheduler::Eevdf && !pinned_) return q.waiting.begin();
  const double avg = params_.scheduler == Scheduler::Eevdf ? avg_vruntime(q) : 0;
  auto fallback    = q.waiting.end();
  for (auto it = q.waiting.begin(); it != q.waiting.end(); ++it) {
    const Proc* p = std::get<2>(*it);
    if (!p->allowed_on(slot) || !cache_allows(*p, slot, now)) continue;
    if (params_.scheduler != Scheduler::Eevdf || eligible(avg, *p)) return it;
    if (fallback == q.waiting.end()) fallback = it;
  }
  return fallback;
}

Proc* Cpu::take_next(int slot, double now)
{
  Queue& q      = queue_of(slot);
  const auto it = next_for(q, slot, now);
  if (it == q.waiting.end()) {
    if (params_.run_queues != RunQueues::PerCpu) return nullptr;
    // A newidle balance that finds every queue empty finds the machine balanced, which resets
    // the count of failed balances (sched_balance_rq()'s out_balanced).
    if (waiting_ == 0) balance_failed_ = 0;
    return pull_from_others(slot, now, balance_failed_ > params_.cache_nice_tries);
  }
  Proc* next = std::get<2>(*it);
  q.waiting.erase(it);
  waiting_--;
  return next;
}

// A CPU whose own queue is empty pulls a process from the longest other queue, as Linux's
// newidle balance does (load_balance() from newidle_balance()): the first one in that queue's
// order that is not cache-hot there (can_migrate_task()'s task_hot()), or the first of all when
// allow_hot says the balancer has failed too often.
Proc* Cpu::pull_from_others(int slot, double now, bool allow_hot)
{
  std::size_t busiest = queues_.size();
  for (std::size_t i = 0; i < queues_.size(); i++)
    if (!queues_[i].waiting.empty() &&
        (busiest == queues_.size() || queues_[i].waiting.size() > queues_[busiest].waiting.size()))
      busiest = i;
  if (busiest == queues_.size()) return nullptr;
  Queue& from = queues_[busiest];
  for (auto it = from.waiting.begin(); it != from.waiting.end(); ++it) {
    Proc* p = std::get<2>(*it);
    if (!p->allowed_on(slot)) continue;
    if (!allow_hot && p->slot_ >= 0 && now - p->off_cpu_since_ < params_.migration_cost) continue;
    from.waiting.erase(it);
    waiting_--;
    Queue& to = queue_of(slot);
    if (params_.scheduler == Scheduler::Eevdf) {
      remove_runnable(from, *p);
      place(to, *p, true);
      add_runnable(to, *p);
    }
    move_to(*p, queue_index(slot));
    return p;
  }
  return nullptr;
}

double Cpu::next_tick(double t) const
{
  return (std::floor(t / params_.balance_tick) + 1) * params_.balance_tick;
}

// The nohz idle balance (Linux 6.18, sched_balance_domains() for each idle CPU, kicked by a busy
// CPU's tick while it has a process waiting): an idle CPU pulls a cache-cold process, or any once
// the balance has failed more than cache_nice_tries times in a row (nr_balance_failed).
void Cpu::tick_balance(Proc& caller, double tick)
{
  const long long index = std::llround(tick / params_.balance_tick);
  if (index <= last_tick_) return;
  last_tick_ = index;
  for (int slot = 0; slot < slots() && waiting_ > 0; slot++) {
    if (slots_[static_cast<std::size_t>(slot)].holder != nullptr) continue;
    const double now = sim::now();
    Proc* p          = pull_from_others(slot, now, balance_failed_ > params_.cache_nice_tries);
    if (p == nullptr) {
      balance_failed_++;
      return;
    }
    balance_failed_ = 0;
    switches_++; // from idle
    assign(*p, slot, now);
    if (p == &caller)
      p->granted = true;
    else
      p->grant();
  }
}

// With per-CPU run queues a process waiting in a CPU's queue was put there to run there; only
// pulling it from another queue asks whether it is cache-hot (pull_from_others()).
bool Cpu::cache_allows(const Proc& proc, int slot, double now) const
{
  return params_.cache_size <= 0 || params_.run_queues == RunQueues::PerCpu || proc.slot_ < 0 || proc.slot_ == slot ||
         now - proc.off_cpu_since_ >= params_.migration_cost;
}

// At the end of a slice. EEVDF (update_deadline()): a process that has run its request gets the
// next one, and gives way to an eligible process with an earlier deadline, or to any eligible
// one once it is not eligible itself.
bool Cpu::should_yield(Proc& proc)
{
  const Queue& q  = queue_of(proc.slot_);
  const auto next = next_for(q, proc.slot_, sim::now());
  if (next == q.waiting.end() || proc.high_priority_) return false;
  if (std::get<2>(*next)->high_priority_) return true;
  switch (params_.scheduler) {
  case Scheduler::Cfs:
    return std::get<0>(*next) < proc.vruntime_;
  case Scheduler::Eevdf: {
    if (proc.vruntime_ >= proc.deadline_) proc.deadline_ = proc.vruntime_ + params_.time_slice;
    const Proc& other = *std::get<2>(*next);
    const double avg  = avg_vruntime(q);
    return eligible(avg, other) && (!eligible(avg, proc) || other.deadline_ < proc.deadline_);
  }
  case Scheduler::Fifo:
    break;
  }
  return true;
}

int Cpu::kind_of(const std::string& process_name)
{
  const std::string kind = process_name.substr(0, process_name.find(' '));
  const auto it          = std::find(kinds_.begin(), kinds_.end(), kind);
  if (it != kinds_.end()) return static_cast<int>(it - kinds_.begin());
  kinds_.push_back(kind);
  switches_of_kind_.emplace_back();
  busy_of_kind_.push_back(0);
  return static_cast<int>(kinds_.size()) - 1;
}

std::map<std::string, Cpu::SwitchCounts> Cpu::switches_by_kind() const
{
  std::map<std::string, SwitchCounts> counts;
  for (std::size_t k = 0; k < kinds_.size(); k++) counts[kinds_[k]] = switches_of_kind_[k];
  return counts;
}

void Cpu::release(Proc& proc, bool preempted)
{
  const double now = sim::now();
  const int slot   = proc.slot_;
  auto& s          = slots_[static_cast<std::size_t>(slot)];
  if (s.holder != &proc)
    throw std::logic_error("Cpu::release: " + proc.name() + " does not hold slot " + std::to_string(slot));
  const double held = now - std::max(s.held_since, stats_since_);
  busy_seconds_ += held;
  busy_of_kind_[static_cast<std::size_t>(proc.kind_)] += held;
  s.holder = nullptr;
  busy_per_core_[static_cast<std::size_t>(core_of(slot))]--;
  free_slots_++;
  proc.on_cpu_        = false;
  proc.off_cpu_since_ = now;
  proc.preempt_for_   = nullptr;
  Queue& q            = queue_of(slot);
  if (params_.scheduler == Scheduler::Eevdf) remove_runnable(q, proc);
  q.min_vruntime = std::max(q.min_vruntime, proc.vruntime_);
  switches_++; // to the next process, or to idle
  auto& counts = switches_of_kind_[static_cast<std::size_t>(proc.kind_)];
  (preempted ? counts.involuntary : counts.voluntary)++;
  Proc* next = take_next(slot, now);
  if (next == nullptr) {
    idle_entries_++;
    return;
  }
  q.min_vruntime = std::max(q.min_vruntime, std::min(next->vruntime_, proc.vruntime_));
  assign(*next, slot, now);
  next->grant();
}

double Cpu::busy_seconds(double now) const
{
  double busy = busy_seconds_;
  for (const auto& s : slots_)
    if (s.holder != nullptr) busy += now - std::max(s.held_since, stats_since_);
  return busy;
}

std::map<std::string, double> Cpu::busy_seconds_by_kind(double now) const
{
  std::map<std::string, double> busy;
  for (std::size_t k = 0; k < kinds_.size(); k++) busy[kinds_[k]] = busy_of_kind_[k];
  for (const auto& s : slots_)
    if (s.holder != nullptr)
      busy[kinds_[static_cast<std::size_t>(s.holder->kind_)]] += now - std::max(s.held_since, stats_since_);
  return busy;
}

void Cpu::reset_stats(double now)
{
  busy_seconds_       = 0;
  switches_           = 0;
  migrations_         = 0;
  wakeup_preemptions_ = 0;
  busy_interrupts_    = 0;
  std::fill(switches_of_kind_.begin(), switches_of_kind_.end(), SwitchCounts{});
  std::fill(busy_of_kind_.begin(), busy_of_kind_.end(), 0.0);
  refill_seconds_        = 0;
  translation_seconds_   = 0;
  address_space_seconds_ = 0;
  stats_since_           = now;
}

} // namespace sim
