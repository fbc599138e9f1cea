/* CheckpointerMain's scheduling of checkpoints (checkpointer.c, PostgreSQL 15). */
#include "models/checkpointer.hpp"

#include "sim/clock.hpp"

#include <algorithm>

namespace pg {

namespace {
// XLogCheckpointNeeded: CheckPointSegments = max_wal_size / (1 + checkpoint_completion_target).
constexpr double checkpoint_completion_target = 0.9;
constexpr double kPoll                        = 1.0; // the checkpointer wakes at least every second
// XLOG_CHECKPOINT_ONLINE: XLogRecord + CheckPoint.
constexpr double SizeOfCheckpointRecord = 24 + 2 + 88;
} // namespace

Checkpointer::Checkpointer(Backend& me, Xlog& xlog, const Scenario& scenario, sim::WaitEventId event)
    : me_(me), xlog_(xlog), scenario_(scenario), event_(event)
{
}

void Checkpointer::CreateCheckPoint()
{
  redo_ = xlog_.start_checkpoint(me_);
  xlog_.XLogInsert(me_, XLogRecordData{SizeOfCheckpointRecord, 0});
  checkpoints_++;
}

void Checkpointer::main()
{
  if (scenario_.run.checkpoint_at_start) CreateCheckPoint();
  const double wal_limit = scenario_.settings.max_wal_size / (1 + checkpoint_completion_target);
  double last            = sim::now();
  for (;;) {
    const double now     = sim::now();
    const double due     = last + scenario_.settings.checkpoint_timeout;
    const bool wal_based = static_cast<double>(xlog_.insert_lsn() - redo_) >= wal_limit;
    if (now >= due - 1e-9 || wal_based) {
      CreateCheckPoint();
      last = now;
      continue;
    }
    me_.proc.block_until(std::min(due, now + kPoll), event_);
  }
}

} // namespace pg
