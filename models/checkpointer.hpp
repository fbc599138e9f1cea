/* The checkpointer (src/backend/postmaster/checkpointer.c, PostgreSQL 15), as far as the WAL
 * cares: a checkpoint every checkpoint_timeout, or sooner when max_wal_size worth of WAL has
 * been written since the last one, moves the redo pointer, so that each page's next change
 * carries a full-page image again. Writing out dirty buffers is not modelled here. */
#pragma once

#include "models/backend.hpp"
#include "models/scenario.hpp"
#include "models/xlog.hpp"

namespace pg {

class Checkpointer {
public:
  Checkpointer(Backend& me, Xlog& xlog, const Scenario& scenario, sim::WaitEventId event);
  void main();
  std::uint64_t checkpoints() const { return checkpoints_; }

private:
  void CreateCheckPoint();

  Backend& me_;
  Xlog& xlog_;
  const Scenario& scenario_;
  sim::WaitEventId event_;
  XLogRecPtr redo_           = 0;
  std::uint64_t checkpoints_ = 0;
};

} // namespace pg
