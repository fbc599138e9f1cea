/* kblockd's dispatch of cache flushes (block/blk-flush.c and blk-mq.c's requeue work, Linux 5.x
 * to 6.4, as the local VM's kernel threads show it: about one kworker run per fdatasync). */
#include "models/kblockd.hpp"

#include "sim/clock.hpp"

#include <utility>

namespace pg {

Kblockd::Kblockd(int id, sim::Cpu& cpu, sim::Nvme& device, double dispatch_cpu, sim::WaitEventId idle_event)
    : proc_("kworker kblockd", id, cpu), device_(device), dispatch_cpu_(dispatch_cpu), idle_event_(idle_event)
{
  proc_.set_high_priority(); // kblockd is a WQ_HIGHPRI workqueue: its kworkers run at nice -20
  proc_.set_kernel_thread();
}

void Kblockd::flush(sim::Proc& caller, sim::WaitEventId event)
{
  double completion = -1;
  caller.flush(); // the work item is queued at the caller's time, not before its accrued work
  queue_.push_back(Request{&caller, &completion});
  proc_.wake_before_sleeping();
  caller.block_until_told(completion, event);
}

void Kblockd::main()
{
  for (;;) {
    while (queue_.empty()) proc_.sleep(idle_event_);
    proc_.stall(dispatch_cpu_);
    proc_.flush();
    // Everything queued by the time the work item runs goes out in this run.
    std::vector<Request> batch;
    batch.swap(queue_);
    for (const Request& r : batch) {
      *r.completion = device_.flush(sim::now());
      r.caller->wake();
    }
  }
}

} // namespace pg
