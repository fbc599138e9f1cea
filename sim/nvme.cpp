/* The analytic NVMe model: completion times from queue slots, per-command latency, one FIFO
 * transfer channel and flush ordering, computed without SimGrid.
 *
 * Composition of one data command submitted at `now` (precondition: `now` never decreases from
 * one call to the next, which holds when callers pass the simulated clock; asserted in debug
 * builds, and it makes submission order the FIFO order):
 *   start          = max(now, earliest slot free time)        waiting for a free slot
 *   transfer_start = max(start + latency, channel_free_)      latency phase, then the channel
 *   completion     = transfer_start + bytes / bandwidth
 * and the slot stays taken until completion. The latency comes before the transfer for reads
 * and writes alike: an isolated command costs latency + bytes / bandwidth either way, and under
 * load the channel, not the order of the two phases, bounds throughput at `bandwidth`. The
 * channel is FIFO in submission order (a command never overtakes an earlier one's transfer),
 * which keeps each command O(log queue_depth). A command without bytes never waits for the channel.
 *
 * A flush takes a slot like any command, but may only start its flush_latency once every command
 * submitted before it has completed: completion = max(start, last_completion_) + flush_latency,
 * and it holds its slot meanwhile, as an outstanding Flush command holds a queue entry.
 *
 * Spread and stalls. With latency_sigma > 0 each command's latency is L * exp(sigma Z - sigma^2/2)
 * for a standard normal Z: log-normal with mean L. A stall freezes the device: every phase above
 * (latency, transfer, flush) counts device time, which does not pass during a stall, so a phase
 * that a stall overlaps ends that much later, and one that would start inside a stall starts at
 * its end. Episodes are drawn lazily in time order from their own stream, so the same seed gives
 * the same stalls whatever the commands are.
 */
#include "sim/nvme.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <string>

namespace sim {

namespace {

void check_latency(double value, const char* name)
{
  if (!(value >= 0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("Nvme: ") + name + " must be finite and >= 0");
}

} // namespace

Nvme::Nvme(const NvmeParams& params, std::uint64_t seed, std::string_view name)
    : params_(params), latency_rng_(seed, std::string(name) + " latency"),
      stall_rng_(seed, std::string(name) + " stalls")
{
  if (params.queue_depth < 1) throw std::invalid_argument("Nvme: queue_depth must be >= 1");
  check_latency(params.read_latency, "read_latency");
  check_latency(params.write_latency, "write_latency");
  check_latency(params.flush_latency, "flush_latency");
  if (!(params.bandwidth > 0)) throw std::invalid_argument("Nvme: bandwidth must be > 0");
  if (!(params.latency_sigma >= 0) || !(params.latency_sigma <= 5))
    throw std::invalid_argument("Nvme: latency_sigma must be between 0 and 5");
  check_latency(params.stall_every, "stall_every");
  check_latency(params.stall_duration, "stall_duration");
  if (params.stall_every > 0) next_stall_ = stall_rng_.exponential(params.stall_every);
  for (int i = 0; i < params.queue_depth; ++i) slot_free_.push(0.0);
}

double Nvme::read(double now, double bytes)
{
  ++stats_.reads;
  stats_.bytes_read += bytes;
  return submit(now, latency(params_.read_latency), bytes, false);
}

double Nvme::write(double now, double bytes)
{
  ++stats_.writes;
  stats_.bytes_written += bytes;
  return submit(now, latency(params_.write_latency), bytes, false);
}

double Nvme::flush(double now)
{
  ++stats_.flushes;
  return submit(now, latency(params_.flush_latency), 0, true);
}

double Nvme::latency(double mean)
{
  if (params_.latency_sigma == 0 || mean == 0) return mean;
  const double sigma = params_.latency_sigma;
  return mean * std::exp(sigma * latency_rng_.standard_normal() - 0.5 * sigma * sigma);
}

double Nvme::advance(double from, double busy)
{
  if (params_.stall_every == 0 || params_.stall_duration == 0) return from + busy;
  double t = from;
  for (std::size_t i = 0;; i++) {
    while (i >= stalls_.size()) {
      const double start = next_stall_;
      const double end   = start + stall_rng_.exponential(params_.stall_duration);
      stalls_.push_back({start, end});
      next_stall_ = end + stall_rng_.exponential(params_.stall_every);
    }
    const Stall& s = stalls_[i];
    if (s.end <= t) continue;
    if (t + busy <= s.start) return t + busy;
    if (s.end > counted_stall_end_) {
      ++stats_.stalls;
      counted_stall_end_ = s.end;
    }
    if (s.start > t) busy -= s.start - t;
    t = s.end;
  }
}

double Nvme::submit(double now, double service, double bytes, bool barrier)
{
  assert(now >= last_submit_);
  assert(bytes >= 0);
  last_submit_ = now;

  // Every phase below starts at or after now, so no episode that ended before now matters again.
  while (!stalls_.empty() && stalls_.front().end <= now) stalls_.pop_front();

  const double start = std::max(now, slot_free_.top());
  slot_free_.pop();

  double completion = 0;
  if (barrier) {
    completion = advance(std::max(start, last_completion_), service);
  } else if (bytes > 0) {
    const double transfer_start = std::max(advance(start, service), channel_free_);
    completion                  = advance(transfer_start, bytes / params_.bandwidth);
    channel_free_               = completion;
  } else {
    completion = advance(start, service);
  }

  slot_free_.push(completion);
  last_completion_ = std::max(last_completion_, completion);
  stats_.busy_slot_seconds += completion - start;
  return completion;
}

} // namespace sim
