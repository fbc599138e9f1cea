/* Contended cache lines: see cacheline.hpp. */
#include "sim/cacheline.hpp"

#include "sim/cpu.hpp"
#include "sim/proc.hpp"

#include <algorithm>

namespace sim {

std::size_t CacheLine::contenders(double t)
{
  while (!in_flight_.empty() && in_flight_.front() <= t) in_flight_.pop_front();
  return in_flight_.size();
}

double CacheLine::rmw(Proc& proc, double hold)
{
  const Cpu& cpu      = proc.cpu();
  const double t      = proc.local_time();
  const double queued = static_cast<double>(contenders(t));
  const double start  = std::max(t, free_at_);
  const double move   = cpu.transfer(owner_, proc.slot()) * (1.0 + cpu.params().line_contention * queued);
  const double done   = start + move + hold;
  free_at_            = done;
  owner_              = proc.slot();
  in_flight_.push_back(done);
  proc.stall(done - t);
  return start - t;
}

void CacheLine::read(Proc& proc) const
{
  proc.stall(proc.cpu().transfer(owner_, proc.slot()));
}

} // namespace sim
