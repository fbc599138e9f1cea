/* WalWriterMain of walwriter.c (PostgreSQL 15). */
#include "models/walwriter.hpp"

namespace pg {

WalWriter::WalWriter(Backend& me, Xlog& xlog, const Scenario& scenario, const WaitEvents& events)
    : me_(me), xlog_(xlog), scenario_(scenario), ev_(events), latch_(me.proc, scenario.policies.latch)
{
}

void WalWriter::main()
{
  int left_till_hibernate = LOOPS_UNTIL_HIBERNATE;
  bool hibernating        = false;
  for (;;) {
    // Advertise a possible hibernation before resetting the latch, so no wake-up is missed.
    if (hibernating != (left_till_hibernate <= 1)) {
      hibernating = left_till_hibernate <= 1;
      xlog_.SetWalWriterSleeping(me_, hibernating);
    }
    latch_.reset();
    me_.proc.work(scenario_.costs.walwriter_loop);
    cycles_++;
    if (xlog_.XLogBackgroundFlush(me_)) {
      left_till_hibernate = LOOPS_UNTIL_HIBERNATE;
      // Take initialisation of WAL buffers off the backends' critical path.
      xlog_.AdvanceXLInsertBufferOpportunistic(me_);
    } else if (left_till_hibernate > 0) {
      left_till_hibernate--;
    }
    const double delay = scenario_.settings.wal_writer_delay;
    latch_.wait(left_till_hibernate > 0 ? delay : delay * HIBERNATE_FACTOR, ev_.WalWriterMain);
  }
}

} // namespace pg
