/* An NVMe device: a queue of commands served by up to queue_depth parallel slots.
 *
 * SimGrid's disk model has bandwidth only, so walsim computes each command's completion time
 * itself, in O(log queue_depth) and without simcalls: a command waits for a free slot (FIFO),
 * spends the command's fixed latency in its slot, and moves its bytes through one shared
 * transfer channel at the device bandwidth (FIFO). A flush (fdatasync, FUA) costs flush_latency
 * in a slot and completes only after every command submitted before it. The caller blocks until
 * the returned completion time.
 */
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace sim {

struct NvmeParams {
  int queue_depth      = 32;
  double read_latency  = 80e-6;  // seconds per read command, excluding transfer
  double write_latency = 15e-6;  // seconds per write command, excluding transfer
  double flush_latency = 100e-6; // seconds for a cache flush
  double bandwidth     = 2e9;    // bytes per second, shared by all commands
};

struct NvmeStats {
  std::uint64_t reads = 0, writes = 0, flushes = 0;
  double bytes_read = 0, bytes_written = 0;
  double busy_slot_seconds = 0; // sum over commands of time spent in a slot
  void reset() { *this = NvmeStats(); }
};

class Nvme {
public:
  explicit Nvme(const NvmeParams& params);
  /// Submit at time now; returns the completion time (>= now).
  double read(double now, double bytes);
  double write(double now, double bytes);
  double flush(double now);
  const NvmeParams& params() const { return params_; }
  /// When the last of the commands submitted so far completes.
  double last_completion() const { return last_completion_; }
  NvmeStats& stats() { return stats_; }

private:
  double submit(double now, double service, double bytes, bool barrier);
  NvmeParams params_;
  NvmeStats stats_;
  std::priority_queue<double, std::vector<double>, std::greater<double>> slot_free_; // slot free times
  double channel_free_    = 0; // when the transfer channel is next free
  double last_completion_ = 0; // latest completion of any command, for flush ordering
  double last_submit_     = 0; // submission times must not decrease (checked in debug builds)
};

} // namespace sim
