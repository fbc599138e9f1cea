/* A backend serving one client connection, following the main loop of
 * src/backend/tcop/postgres.c (PostgresMain: read a command, execute it, reply) and the
 * executor work of pgbench's statements. */
#pragma once

#include "models/backend.hpp"
#include "models/heapam.hpp"
#include "models/pgbench.hpp"
#include "models/xact.hpp"

namespace pg {

/// What a backend needs of the server it runs in.
struct ServerContext {
  const Scenario& scenario;
  const WaitEvents& events;
  ProcArray& procarray;
  Heapam& heapam;
  Xact& xact;
  PgbenchTables& tables;
};

/// pg_stat_activity's state column for a client backend.
enum class BackendState { Active, IdleInTransaction, Idle };

class Connection {
public:
  Connection(Backend& backend, const ServerContext& server);

  /// The client sends a command, arriving at the server at `arrival`.
  void send(PgbenchClient* client, const Command& command, double arrival);
  /// PostgresMain: runs until the simulation ends.
  void PostgresMain();
  Backend& backend() { return backend_; }
  const Backend& backend() const { return backend_; }
  /// The state pg_stat_activity shows at time t (see sim::Proc::active_at).
  BackendState state_at(double t) const;

private:
  void exec_command(const Command& command);
  void exec_statement(const Command& command);
  double protocol_cost() const;

  Backend& backend_;
  const ServerContext& server_;
  PgbenchClient* client_ = nullptr;
  Command command_;
  bool pending_              = false;
  double arrival_            = 0;
  bool in_transaction_block_ = false;
  bool in_transaction_       = false;
  bool idle_in_transaction_  = false; // what pgstat_report_activity reported before ReadyForQuery
};

} // namespace pg
