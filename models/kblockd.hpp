/* The block layer's kblockd worker (a kworker/N:NH-kblockd kernel thread, Linux blk-mq). A cache
 * flush that fdatasync() asks for (blkdev_issue_flush, REQ_PREFLUSH) is not sent to the device from
 * the caller: blk_insert_flush queues it, and blk_kick_flush hands it to kblockd's requeue work,
 * which dispatches it. So every fdatasync waits for this thread to get a CPU, which on a busy
 * machine is not at once. Counted under "kworker" in the switches by kind of process. */
#pragma once

#include "sim/nvme.hpp"
#include "sim/proc.hpp"

#include <vector>

namespace pg {

class Kblockd {
public:
  /// dispatch_cpu: the worker's CPU time to dispatch the queued flushes (blk_mq_requeue_work).
  Kblockd(int id, sim::Cpu& cpu, sim::Nvme& device, double dispatch_cpu, sim::WaitEventId idle_event);

  /// A cache flush asked for by `caller`, which waits, off its CPU, until the device completes it.
  void flush(sim::Proc& caller, sim::WaitEventId event);
  /// The worker: dispatches what is queued each time it runs, until the simulation ends.
  void main();
  sim::Proc& proc() { return proc_; }

private:
  struct Request {
    sim::Proc* caller;
    double* completion;
  };
  sim::Proc proc_;
  sim::Nvme& device_;
  double dispatch_cpu_;
  sim::WaitEventId idle_event_;
  std::vector<Request> queue_;
};

} // namespace pg
