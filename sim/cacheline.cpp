/* Contended cache lines: see cacheline.hpp. */
#include "sim/cacheline.hpp"

#include "sim/clock.hpp"
#include "sim/cpu.hpp"
#include "sim/proc.hpp"

#include <algorithm>

namespace sim {

namespace {
constexpr std::size_t kCompactAfter = 64;
} // namespace

std::size_t CacheLine::contenders(double t) const
{
  std::size_t n = 0;
  for (std::size_t i = head_; i < booked_.size(); i++)
    if (booked_[i].asked <= t && t < booked_[i].done) n++;
  return n;
}

void CacheLine::forget_done()
{
  const double t = now();
  while (head_ < booked_.size() && booked_[head_].done <= t) settled_ = booked_[head_++].slot;
  if (head_ == booked_.size()) {
    booked_.clear();
    head_ = 0;
  } else if (head_ >= kCompactAfter && 2 * head_ >= booked_.size()) {
    // Drop the completed front now and then, so that a line never idle does not grow forever.
    booked_.erase(booked_.begin(), booked_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

double CacheLine::rmw(Proc& proc, double hold)
{
  forget_done();
  const Cpu& cpu      = proc.cpu();
  const double t      = proc.local_time();
  const double factor = 1.0 + cpu.params().line_contention * static_cast<double>(contenders(t));
  // The writer must own the line exclusively: a transfer unless it was the previous writer and
  // nobody read it since (invalidating shared copies costs about one transfer too).
  const auto duration = [&](int previous) {
    const int from = previous == proc.slot() && shared_ ? a_reader_ : previous;
    return cpu.transfer(from, proc.slot()) * factor + hold;
  };
  double start  = t;
  int previous  = settled_;
  auto position = booked_.begin() + static_cast<std::ptrdiff_t>(head_);
  for (; position != booked_.end(); ++position) {
    if (position->done > start && start + duration(previous) <= position->start) break;
    start    = std::max(start, position->done);
    previous = position->slot;
  }
  const double done = start + duration(previous);
  if (position == booked_.end()) owner_ = proc.slot();
  booked_.insert(position, Booking{t, start, done, proc.slot()});
  if (shared_) std::fill(readers_.begin(), readers_.end(), 0);
  shared_ = false;
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
