/* The WAL writer process, following src/backend/postmaster/walwriter.c (WalWriterMain) of
 * PostgreSQL 15: flush in the background, sleep on its latch for wal_writer_delay, and after
 * LOOPS_UNTIL_HIBERNATE idle cycles sleep HIBERNATE_FACTOR times longer, asking backends (through
 * XLogCtl->WalWriterSleeping) to wake it. */
#pragma once

#include "models/backend.hpp"
#include "models/wait_event.hpp"
#include "models/xlog.hpp"
#include "sim/latch.hpp"

namespace pg {

class WalWriter {
public:
  WalWriter(Backend& me, Xlog& xlog, const Scenario& scenario, const WaitEvents& events);

  /// WalWriterMain: runs until the simulation ends.
  void main();
  sim::Latch& latch() { return latch_; }
  std::uint64_t cycles() const { return cycles_; }
  void reset_stats() { cycles_ = 0; }

private:
  static constexpr int LOOPS_UNTIL_HIBERNATE = 50;
  static constexpr int HIBERNATE_FACTOR      = 25;

  Backend& me_;
  Xlog& xlog_;
  const Scenario& scenario_;
  const WaitEvents& ev_;
  sim::Latch latch_;
  std::uint64_t cycles_ = 0;
};

} // namespace pg
