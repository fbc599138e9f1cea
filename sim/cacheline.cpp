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
  // The writer must own the line exclusively: a transfer unless it is the last writer and
  // nobody read it since (invalidating shared copies costs about one transfer too).
  const int from    = owner_ == proc.slot() && shared_ && nreaders_ > 0 ? readers_[0] : owner_;
  const double move = cpu.transfer(from, proc.slot()) * (1.0 + cpu.params().line_contention * queued);
  const double done = start + move + hold;
  free_at_          = done;
  owner_            = proc.slot();
  shared_           = false;
  nreaders_         = 0;
  in_flight_.push_back(done);
  proc.stall(done - t);
  return start - t;
}

bool CacheLine::cached_here(int slot) const
{
  if (slot == owner_) return true;
  for (std::uint8_t i = 0; i < nreaders_; i++)
    if (readers_[i] == slot) return true;
  return false;
}

void CacheLine::read(Proc& proc)
{
  const int slot = proc.slot();
  if (cached_here(slot)) {
    proc.stall(proc.cpu().params().line_hit);
    return;
  }
  proc.stall(proc.cpu().transfer(owner_, slot));
  shared_ = true;
  if (nreaders_ < readers_.size()) readers_[nreaders_++] = static_cast<std::int16_t>(slot);
}

} // namespace sim
