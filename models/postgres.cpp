/* PostgresMain and the execution of pgbench's statements (postgres.c, the executor; PostgreSQL 15). */
#include "models/postgres.hpp"

#include "sim/clock.hpp"

namespace pg {

namespace {
double now()
{
  return sim::now();
}
} // namespace

Connection::Connection(Backend& backend, const ServerContext& server) : backend_(backend), server_(server) {}

void Connection::send(PgbenchClient* client, const Command& command, double arrival)
{
  client_  = client;
  command_ = command;
  arrival_ = arrival;
  pending_ = true;
  backend_.proc.wake(true);
}

BackendState Connection::state_at(double t) const
{
  if (backend_.proc.active_at(t)) return BackendState::Active;
  return idle_in_transaction_ ? BackendState::IdleInTransaction : BackendState::Idle;
}

double Connection::protocol_cost() const
{
  const Costs& c = server_.scenario.costs;
  switch (server_.scenario.pgbench.protocol) {
  case Protocol::Simple:
    return c.protocol_simple;
  case Protocol::Extended:
    return c.protocol_extended;
  case Protocol::Prepared:
    return c.protocol_prepared;
  }
  return c.protocol_simple;
}

void Connection::PostgresMain()
{
  sim::Proc& proc = backend_.proc;
  for (;;) {
    // ReadCommand: idle, or idle in transaction, until the next message arrives.
    proc.set_active(false);
    while (!pending_) proc.sleep(server_.events.ClientRead);
    if (arrival_ > now()) proc.block_until(arrival_, server_.events.ClientRead);
    pending_ = false;
    proc.stall(server_.scenario.hardware.os.socket_recv);
    // pg_stat_activity shows the backend active only while it executes the command: it
    // reports idle again just before sending ReadyForQuery.
    proc.set_active(true);
    exec_command(command_);
    idle_in_transaction_ = in_transaction_;
    proc.set_active(false);
    proc.stall(server_.scenario.hardware.os.socket_send);
    proc.flush();
    client_->thread->deliver(client_, now() + server_.scenario.hardware.network_latency);
  }
}

void Connection::exec_command(const Command& command)
{
  Backend& me    = backend_;
  const Costs& c = server_.scenario.costs;
  me.proc.work(protocol_cost());
  if (!in_transaction_) {
    server_.xact.StartTransaction(me);
    in_transaction_ = true;
  }
  switch (command.kind) {
  case CommandKind::Begin:
    me.proc.work(c.begin_end);
    in_transaction_block_ = true;
    return;
  case CommandKind::End:
    me.proc.work(c.begin_end);
    in_transaction_block_ = false;
    break;
  case CommandKind::TpcbFunc:
    // A PL/pgSQL function runs each statement through SPI, with a new snapshot for each.
    me.proc.work(c.function_call);
    for (CommandKind k : {CommandKind::UpdateAccounts, CommandKind::SelectAccounts, CommandKind::UpdateTellers,
                          CommandKind::UpdateBranches, CommandKind::InsertHistory}) {
      Command inner = command;
      inner.kind    = k;
      me.proc.work(c.function_call);
      exec_statement(inner);
    }
    break;
  default:
    exec_statement(command);
    break;
  }
  // Outside BEGIN ... END every statement is its own transaction.
  if (!in_transaction_block_) {
    server_.xact.CommitTransaction(me);
    in_transaction_ = false;
  }
}

void Connection::exec_statement(const Command& command)
{
  Backend& me      = backend_;
  PgbenchTables& t = server_.tables;
  Heapam& heap     = server_.heapam;
  const Costs& c   = server_.scenario.costs;
  // READ COMMITTED: every statement takes a new snapshot.
  server_.procarray.GetSnapshotData(me);
  switch (command.kind) {
  case CommandKind::UpdateAccounts:
    heap.update(me, t.accounts, command.aid);
    break;
  case CommandKind::SelectAccounts:
    heap.index_fetch(me, t.accounts, command.aid);
    me.proc.work(c.select_row);
    break;
  case CommandKind::UpdateTellers:
    heap.update(me, t.tellers, command.tid);
    break;
  case CommandKind::UpdateBranches:
    heap.update(me, t.branches, command.bid);
    break;
  case CommandKind::InsertHistory:
    heap.insert(me, t.history, 0);
    break;
  case CommandKind::InsertRows:
    for (int i = 0; i < server_.scenario.pgbench.insert_rows; i++) heap.insert(me, t.bulk, 0);
    break;
  default:
    break;
  }
}

} // namespace pg
