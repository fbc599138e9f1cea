/* The process that empties the fsync request queue: in PostgreSQL 9.1 the background writer
 * (src/backend/postmaster/bgwriter.c, BackgroundWriterMain and BgWriterNap: AbsorbFsyncRequests
 * on every wake-up, every bgwriter_delay), from 9.2 the checkpointer (checkpointer.c,
 * CheckpointerMain: it sleeps until a checkpoint is due, and backends nudge it when the queue is
 * half full). Which one is SyncQueueWakeup.
 *
 * Not modelled: the background writer's LRU cleaning scan (BgBufferSync), since a scan through a
 * ring takes only a ring's worth of buffers from the clock per scan and leaves it nothing to clean,
 * and checkpoints, since the series starts right after one and lasts less than checkpoint_timeout.
 */
#pragma once

#include "models/sync_queue.hpp"
#include "sim/proc.hpp"

namespace pg {

class BgWriter {
public:
  /// delay: bgwriter_delay (BgWriterDelay) or, for the checkpointer, checkpoint_timeout.
  BgWriter(sim::Proc& proc, SyncRequestQueue& queue, double delay, double loop_ns, sim::WaitEventId idle_event);

  /// The main loop; runs until the simulation ends.
  void main();
  std::uint64_t cycles() const { return cycles_; }

private:
  sim::Proc& proc_;
  SyncRequestQueue& queue_;
  double delay_;
  double loop_ns_;
  sim::WaitEventId idle_event_;
  std::uint64_t cycles_ = 0;
};

} // namespace pg
