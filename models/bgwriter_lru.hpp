/* The background writer of a pgbench server, following BackgroundWriterMain (bgwriter.c,
 * PostgreSQL 15): every bgwriter_delay, BgBufferSync writes dirty buffers ahead of the clock
 * sweep, so that backends find clean victims. It runs only where shared_buffers is tracked (the
 * tables outgrew it at the start): elsewhere PostgreSQL's writer finds nothing to do and
 * hibernates. Its hibernation itself is not modelled, nor its checkpoint-related duties. */
#pragma once

#include "models/backend.hpp"
#include "models/shared_buffers.hpp"

namespace pg {

class BgWriterLru {
public:
  BgWriterLru(Backend& me, SharedBuffers& buffers, double delay, sim::WaitEventId idle_event);

  /// BackgroundWriterMain: runs until the simulation ends.
  void main();
  std::uint64_t rounds() const { return rounds_; }

private:
  Backend& me_;
  SharedBuffers& buffers_;
  double delay_;
  sim::WaitEventId idle_event_;
  std::uint64_t rounds_ = 0;
};

} // namespace pg
