/* Contended cache lines: see cacheline.hpp. */
#include "sim/cacheline.hpp"

#include "sim/cpu.hpp"
#include "sim/proc.hpp"

#include <algorithm>

namespace sim {

namespace {
constexpr std::size_t kCompactAfter = 64;
} // namespace

std::size_t CacheLine::contenders(double t)
{
  while (head_ < in_flight_.size() && in_flight_[head_] <= t) head_++;
  if (head_ == in_flight_.size()) {
    in_flight_.clear();
    head_ = 0;
  } else if (head_ >= kCompactAfter && 2 * head_ >= in_flight_.size()) {
    // Drop the completed front now and then, so that a line never idle does not grow forever.
    in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return in_flight_.size() - head_;
}

double CacheLine::rmw(Proc& proc, double hold)
{
  const Cpu& cpu      = proc.cpu();
  const double t      = proc.local_time();
  const double queued = static_cast<double>(contenders(t));
  const double start  = std::max(t, free_at_);
  // The writer must own the line exclusively: a transfer unless it is the last writer and
  // nobody read it since (invalidating shared copies costs about one transfer too).
  const int from    = owner_ == proc.slot() && shared_ ? a_reader_ : owner_;
  const double move = cpu.transfer(from, proc.slot()) * (1.0 + cpu.params().line_contention * queued);
  const double done = start + move + hold;
  free_at_          = done;
  owner_            = proc.slot();
  if (shared_) std::fill(readers_.begin(), readers_.end(), 0);
  shared_ = false;
  in_flight_.push_back(done);
  proc.stall(done - t);
  return start - t;
}

bool CacheLine::cached_here(int slot) const
{
  if (slot == owner_) return true;
  const auto word = static_cast<std::size_t>(slot) / 64;
  return shared_ && word < readers_.size() && ((readers_[word] >> (slot % 64)) & 1u);
}

void CacheLine::read(Proc& proc, double overlap)
{
  const int slot = proc.slot();
  if (cached_here(slot)) {
    proc.stall(proc.cpu().params().line_hit);
    return;
  }
  proc.stall(proc.cpu().transfer(owner_, slot) / overlap);
  if (slot < 0) return;
  const auto word = static_cast<std::size_t>(slot) / 64;
  if (readers_.size() <= word) readers_.resize(word + 1, 0);
  readers_[word] |= std::uint64_t{1} << (slot % 64);
  a_reader_ = slot;
  shared_   = true;
}

} // namespace sim
