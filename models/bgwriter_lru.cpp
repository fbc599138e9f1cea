/* The background writer's LRU cleaning: see bgwriter_lru.hpp. */
#include "models/bgwriter_lru.hpp"

namespace pg {

BgWriterLru::BgWriterLru(Backend& me, SharedBuffers& buffers, double delay, sim::WaitEventId idle_event)
    : me_(me), buffers_(buffers), delay_(delay), idle_event_(idle_event)
{
}

// Nothing else sets its latch here (no backend asks it to leave hibernation), so each round
// ends in a full bgwriter_delay.
void BgWriterLru::main()
{
  for (;;) {
    buffers_.BgBufferSync(me_);
    rounds_++;
    me_.proc.flush();
    me_.proc.sleep_for(delay_, idle_event_);
  }
}

} // namespace pg
