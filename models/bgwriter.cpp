/* The fsync request absorber's main loop (bgwriter.c 9.1, checkpointer.c 9.2+). See bgwriter.hpp. */
#include "models/bgwriter.hpp"

namespace pg {

BgWriter::BgWriter(sim::Proc& proc, SyncRequestQueue& queue, double delay, double loop_ns, sim::WaitEventId idle_event)
    : proc_(proc), queue_(queue), delay_(delay), loop_ns_(loop_ns), idle_event_(idle_event)
{
  if (queue.params().wakeup == SyncQueueWakeup::HalfFull) queue.set_absorber(&proc);
}

void BgWriter::main()
{
  for (;;) {
    queue_.AbsorbSyncRequests(proc_);
    proc_.work(loop_ns_);
    cycles_++;
    // A nudge from a backend ends the sleep early (only the checkpointer is ever nudged).
    proc_.sleep_for(delay_, idle_event_);
  }
}

} // namespace pg
