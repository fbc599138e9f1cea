/* An NVMe device: a queue of commands served by up to queue_depth parallel slots.
 *
 * SimGrid's disk model has bandwidth only, so walsim computes each command's completion time
 * itself, in O(log queue_depth) and without simcalls: a command waits for a free slot (FIFO),
 * spends the command's fixed latency in its slot, and moves its bytes through one shared
 * transfer channel at the device bandwidth (FIFO). A flush (fdatasync, FUA) costs flush_latency
 * in a slot and completes only after every command submitted before it. The caller blocks until
 * the returned completion time.
 *
 * Real devices are not that regular: a fixed latency may spread (latency_sigma), and the device
 * may stop completing anything for a while (stall episodes: flash garbage collection, a virtual
 * disk's host busy elsewhere). Both are off by default, and then no random number is drawn.
 */
#pragma once

#include "sim/rng.hpp"

#include <cstdint>
#include <deque>
#include <queue>
#include <string_view>
#include <vector>

namespace sim {

struct NvmeParams {
  int queue_depth      = 32;
  double read_latency  = 80e-6;  // seconds per read command, excluding transfer
  double write_latency = 15e-6;  // seconds per write command, excluding transfer
  double flush_latency = 100e-6; // seconds for a cache flush
  double bandwidth     = 2e9;    // bytes per second, shared by all commands
  /// Each command's latency is drawn from a log-normal distribution with this shape (sigma of
  /// its logarithm) whose mean is the latency above, so a fitted mean stays the mean. 0: fixed.
  double latency_sigma = 0;
  /// Stall episodes arrive as a Poisson process with this mean gap (0: none); each lasts an
  /// exponentially distributed time of mean stall_duration, during which no command progresses.
  double stall_every    = 0;
  double stall_duration = 0;
};

struct NvmeStats {
  std::uint64_t reads = 0, writes = 0, flushes = 0;
  double bytes_read = 0, bytes_written = 0;
  double busy_slot_seconds = 0; // sum over commands of time spent in a slot
  std::uint64_t stalls     = 0; // stall episodes that held up a command
  void reset() { *this = NvmeStats(); }
};

class Nvme {
public:
  /// seed and name select the random streams of the latency spread and the stalls (see Rng).
  explicit Nvme(const NvmeParams& params, std::uint64_t seed = 0, std::string_view name = "nvme");
  /// Submit at time now; returns the completion time (>= now).
  double read(double now, double bytes);
  double write(double now, double bytes);
  double flush(double now);
  const NvmeParams& params() const { return params_; }
  /// When the last of the commands submitted so far completes.
  double last_completion() const { return last_completion_; }
  NvmeStats& stats() { return stats_; }

private:
  struct Stall {
    double start, end;
  };
  double submit(double now, double service, double bytes, bool barrier);
  /// The command's latency: the configured one, or a draw around it.
  double latency(double mean);
  /// When `busy` seconds of device time starting at `from` end, stalls included.
  double advance(double from, double busy);
  NvmeParams params_;
  Rng latency_rng_;
  Rng stall_rng_;
  std::deque<Stall> stalls_;     // generated episodes not yet over, in time order
  double next_stall_        = 0; // start of the next episode to generate
  double counted_stall_end_ = 0; // end of the last episode counted in stats_.stalls
  NvmeStats stats_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> slot_free_; // slot free times
  double channel_free_    = 0; // when the transfer channel is next free
  double last_completion_ = 0; // latest completion of any command, for flush ordering
  double last_submit_     = 0; // submission times must not decrease (checked in debug builds)
};

} // namespace sim
