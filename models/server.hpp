/* A PostgreSQL server: the shared-memory subsystems (what CreateSharedMemoryAndSemaphores sets
 * up), the pgbench tables, and its processes: one backend per connection, the WAL writer and
 * the checkpointer. */
#pragma once

#include "models/bgwriter_lru.hpp"
#include "models/checkpointer.hpp"
#include "models/clog.hpp"
#include "models/heapam.hpp"
#include "models/lmgr.hpp"
#include "models/pgbench.hpp"
#include "models/postgres.hpp"
#include "models/procarray.hpp"
#include "models/shared_buffers.hpp"
#include "models/walwriter.hpp"
#include "models/xact.hpp"
#include "models/xlog.hpp"

#include <memory>
#include <vector>

namespace pg {

class Server {
public:
  Server(const Scenario& scenario, sim::Cpu& cpu, sim::Nvme& wal_device, sim::WaitEventNames& names);

  /// A new backend and its connection (pgprocno in order of connection).
  Connection& connect();
  void reset_stats();

  const Scenario& scenario;
  WaitEvents events;
  Xlog xlog;
  Clog clog;
  ProcArray procarray;
  LockManager locks;
  Heapam heapam;
  Xact xact;
  PgbenchTables tables;
  SharedBuffers shared_buffers;
  ServerContext context;
  Backend walwriter_backend;
  WalWriter walwriter;
  Backend checkpointer_backend;
  Checkpointer checkpointer;
  std::unique_ptr<Kblockd> kblockd; // when the profile routes cache flushes through kblockd
  // The background writer, where the tables outgrow shared_buffers from the start.
  std::unique_ptr<Backend> bgwriter_backend;
  std::unique_ptr<BgWriterLru> bgwriter;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<Connection>> connections;

private:
  sim::Cpu& cpu_;
};

} // namespace pg
