/* CPU slots and the run queue: see cpu.hpp for the model. */
#include "sim/cpu.hpp"

#include "sim/clock.hpp"
#include "sim/proc.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace sim {

Cpu::Cpu(const CpuParams& params) : params_(params)
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
  recent_.resize(static_cast<std::size_t>(cores));
  free_slots_ = slots();
  // Busy SMT siblings share one core's throughput: each runs at smt_throughput / threads.
  smt_slowdown_ = params.threads_per_core > 1 ? params.threads_per_core / params.smt_throughput : 1.0;
}

int Cpu::pick_free_slot(int preferred) const
{
  if (free_slots_ == 0) return -1;
  if (preferred >= 0 && slots_[static_cast<std::size_t>(preferred)].holder == nullptr) return preferred;
  // Like Linux's select_idle_sibling: a wholly idle core first (near the last one), then any thread.
  const int n     = slots();
  const int start = preferred >= 0 ? preferred : 0;
  int any         = -1;
  for (int k = 0; k < n; k++) {
    const int s = (start + k) % n;
    if (slots_[static_cast<std::size_t>(s)].holder != nullptr) continue;
    if (busy_per_core_[static_cast<std::size_t>(core_of(s))] == 0) return s;
    if (any < 0) any = s;
  }
  return any;
}

// What a process pays, when it gets a CPU, to bring back the part of its working set that other
// processes pushed out of the core's private cache since it last ran there: all of it after a
// move to another core; otherwise the part that did not survive the others' working sets, taken
// as a random replacement would treat it (survival exp(-pushed / cache size)).
double Cpu::refill(Proc& proc, int core)
{
  const double set = proc.working_set_;
  if (params_.cache_size <= 0 || set <= 0) return 0;
  auto& here    = recent_[static_cast<std::size_t>(core)];
  double pushed = 0;
  if (proc.cache_core_ == core) {
    // Beyond a few cache sizes nothing survives: no need to look further back.
    const double enough = 8 * params_.cache_size;
    for (auto it = here.begin(); it != proc.cache_pos_ && pushed < enough; ++it) pushed += (*it)->working_set_;
    here.erase(proc.cache_pos_);
  } else {
    if (proc.cache_core_ >= 0) recent_[static_cast<std::size_t>(proc.cache_core_)].erase(proc.cache_pos_);
    pushed = std::numeric_limits<double>::infinity();
  }
  here.push_front(&proc);
  proc.cache_core_     = core;
  proc.cache_pos_      = here.begin();
  const double seconds = set * -std::expm1(-pushed / params_.cache_size) * params_.refill_per_byte;
  refill_seconds_ += seconds;
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
  proc.stall(refill(proc, core_of(slot)));
}

bool Cpu::try_take(Proc& proc)
{
  const int slot = pick_free_slot(proc.slot_);
  if (slot < 0) return false;
  switches_++; // from idle
  assign(proc, slot, now());
  return true;
}

void Cpu::enqueue(Proc& proc, bool woken)
{
  proc.granted = false;
  if (woken) proc.vruntime_ = std::max(proc.vruntime_, min_vruntime_ - params_.sleeper_credit);
  const double key = params_.fair_scheduler ? proc.vruntime_ : 0.0;
  run_queue_.emplace(key, arrivals_++, &proc);
}

// Without a cache model where a process runs costs nothing, and the run queue is one queue for
// all CPUs. With one, a freed CPU passes over processes that are cache-hot on another CPU, as
// Linux's per-CPU run queues and its balancer's task_hot() do: those wait for their own CPU.
Cpu::RunQueue::const_iterator Cpu::next_for(int slot, double now) const
{
  if (params_.cache_size <= 0) return run_queue_.begin();
  for (auto it = run_queue_.begin(); it != run_queue_.end(); ++it) {
    const Proc* p = std::get<2>(*it);
    if (p->slot_ < 0 || p->slot_ == slot || now - p->off_cpu_since_ >= params_.migration_cost) return it;
  }
  return run_queue_.end();
}

bool Cpu::should_yield(const Proc& proc) const
{
  const auto next = next_for(proc.slot_, sim::now());
  if (next == run_queue_.end()) return false;
  return !params_.fair_scheduler || std::get<0>(*next) < proc.vruntime_;
}

void Cpu::release(Proc& proc)
{
  const double now = sim::now();
  const int slot   = proc.slot_;
  auto& s          = slots_[static_cast<std::size_t>(slot)];
  if (s.holder != &proc)
    throw std::logic_error("Cpu::release: " + proc.name() + " does not hold slot " + std::to_string(slot));
  busy_seconds_ += now - std::max(s.held_since, stats_since_);
  s.holder = nullptr;
  busy_per_core_[static_cast<std::size_t>(core_of(slot))]--;
  free_slots_++;
  proc.on_cpu_        = false;
  proc.off_cpu_since_ = now;
  min_vruntime_       = std::max(min_vruntime_, proc.vruntime_);
  switches_++; // to the next process, or to idle
  const auto it = next_for(slot, now);
  if (it == run_queue_.end()) return;
  Proc* next = std::get<2>(*it);
  run_queue_.erase(it);
  min_vruntime_ = std::max(min_vruntime_, std::min(next->vruntime_, proc.vruntime_));
  assign(*next, slot, now);
  next->granted = true;
  next->wake();
}

double Cpu::busy_seconds(double now) const
{
  double busy = busy_seconds_;
  for (const auto& s : slots_)
    if (s.holder != nullptr) busy += now - std::max(s.held_since, stats_since_);
  return busy;
}

void Cpu::reset_stats(double now)
{
  busy_seconds_   = 0;
  switches_       = 0;
  migrations_     = 0;
  refill_seconds_ = 0;
  stats_since_    = now;
}

} // namespace sim
