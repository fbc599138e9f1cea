/* pgbench's tables, built-in scripts and client threads (pgbench.c, PostgreSQL 15). */
#include "models/pgbench.hpp"

#include "models/pgbench_tables.hpp"
#include "models/postgres.hpp"

#include "sim/clock.hpp"

namespace pg {

namespace {
double now()
{
  return sim::now();
}

} // namespace

namespace {
// Rows of each pgbench table one transaction of the script updates.
struct UpdatesPerTransaction {
  double branches = 0;
  double tellers  = 0;
  double accounts = 0;
};

UpdatesPerTransaction updates_per_transaction(const PgbenchSpec& spec)
{
  std::vector<Command> commands;
  sim::Rng rng(0, 0);
  build_transaction(spec, rng, commands);
  UpdatesPerTransaction u;
  for (const Command& c : commands) {
    const bool tpcb = c.kind == CommandKind::TpcbFunc;
    u.accounts += tpcb || c.kind == CommandKind::UpdateAccounts ? 1 : 0;
    u.tellers += tpcb || c.kind == CommandKind::UpdateTellers ? 1 : 0;
    u.branches += tpcb || c.kind == CommandKind::UpdateBranches ? 1 : 0;
  }
  return u;
}
} // namespace

std::uint64_t prior_xids(const PgbenchSpec& spec)
{
  return spec.script == Script::SelectOnly ? 0 : spec.prior_transactions;
}

PgbenchTables::PgbenchTables(const PgbenchSpec& spec, std::uint64_t seed, const WaitEvents& ev,
                             const sim::LWLockParams& lp)
    : branches("pgbench_branches", static_cast<std::uint64_t>(spec.scale), branches_tuple_bytes(), spec.fillfactor,
               !spec.unlogged_tables, ev.BufferContent, ev.LockExtend, lp),
      tellers("pgbench_tellers", 10ull * static_cast<std::uint64_t>(spec.scale), tellers_tuple_bytes(), spec.fillfactor,
              !spec.unlogged_tables, ev.BufferContent, ev.LockExtend, lp),
      accounts("pgbench_accounts", 100000ull * static_cast<std::uint64_t>(spec.scale), accounts_tuple_bytes(),
               spec.fillfactor, !spec.unlogged_tables, ev.BufferContent, ev.LockExtend, lp),
      history("pgbench_history", 0, history_tuple_bytes(), 100, !spec.unlogged_tables, ev.BufferContent, ev.LockExtend,
              lp),
      bulk("walsim_insert", 0, heap_tuple_bytes(static_cast<int>(spec.insert_row_size), false), 100,
           !spec.unlogged_tables, ev.BufferContent, ev.LockExtend, lp)
{
  if (spec.reused_tables) accounts.set_spare_versions(1);
  // More pages than pgbench -i fills: rows moved by earlier runs (a scenario's stated history).
  if (spec.branches_pages > branches.nblocks()) branches.spread_over(spec.branches_pages);
  if (spec.tellers_pages > tellers.nblocks()) tellers.spread_over(spec.tellers_pages);
  const std::uint64_t xids = prior_xids(spec);
  if (xids == 0) return;
  const auto end                = static_cast<TransactionId>(FirstNormalTransactionId + xids);
  const UpdatesPerTransaction u = updates_per_transaction(spec);
  branches.set_history(end, xids, u.branches, seed ^ 0x4252414eull);
  tellers.set_history(end, xids, u.tellers, seed ^ 0x54454c4cull);
  accounts.set_history(end, xids, u.accounts, seed ^ 0x41434354ull);
}

void build_transaction(const PgbenchSpec& spec, sim::Rng& rng, std::vector<Command>& out)
{
  out.clear();
  const auto scale = static_cast<std::uint64_t>(spec.scale);
  Command c;
  // \set aid random(1, 100000 * :scale), \set bid random(1, :scale), \set tid random(1, 10 * :scale)
  c.aid    = static_cast<std::uint32_t>(rng.uniform_int(1, 100000 * scale));
  c.bid    = static_cast<std::uint32_t>(rng.uniform_int(1, scale));
  c.tid    = static_cast<std::uint32_t>(rng.uniform_int(1, 10 * scale));
  auto add = [&out, &c](CommandKind kind) {
    c.kind = kind;
    out.push_back(c);
  };
  switch (spec.script) {
  case Script::TpcbLike:
    for (CommandKind k :
         {CommandKind::Begin, CommandKind::UpdateAccounts, CommandKind::SelectAccounts, CommandKind::UpdateTellers,
          CommandKind::UpdateBranches, CommandKind::InsertHistory, CommandKind::End})
      add(k);
    break;
  case Script::SimpleUpdate:
    for (CommandKind k : {CommandKind::Begin, CommandKind::UpdateAccounts, CommandKind::SelectAccounts,
                          CommandKind::InsertHistory, CommandKind::End})
      add(k);
    break;
  case Script::SelectOnly:
    add(CommandKind::SelectAccounts);
    break;
  case Script::TpcbFunc:
    add(CommandKind::TpcbFunc);
    break;
  case Script::InsertOnly:
    for (CommandKind k : {CommandKind::Begin, CommandKind::InsertRows, CommandKind::End}) add(k);
    break;
  }
}

PgbenchThread::PgbenchThread(int id, sim::Cpu& cpu, const Scenario& scenario, const WaitEvents& events,
                             PgbenchStats& stats)
    : proc_("pgbench thread " + std::to_string(id), id, cpu), scenario_(scenario), ev_(events), stats_(stats)
{
}

void PgbenchThread::deliver(PgbenchClient* client, double arrival)
{
  replies_.push_back(Reply{client, arrival});
  proc_.wake(true);
}

void PgbenchThread::start_transaction(PgbenchClient& c)
{
  proc_.work(scenario_.costs.client_transaction);
  build_transaction(scenario_.pgbench, c.rng, c.txn);
  c.next = 0;
  // pgbench times a transaction from just before it sends the first command.
  c.txn_start = proc_.local_time();
}

void PgbenchThread::send_next(PgbenchClient& c)
{
  proc_.work(scenario_.costs.client_command);
  proc_.stall(scenario_.hardware.os.socket_send);
  proc_.flush();
  c.conn->send(&c, c.txn[c.next++], now() + scenario_.hardware.network_latency);
}

void PgbenchThread::main()
{
  for (PgbenchClient* c : clients_) {
    start_transaction(*c);
    send_next(*c);
  }
  for (;;) {
    while (replies_.empty()) proc_.sleep(ev_.PgbenchSelect);
    const Reply r = replies_.front();
    replies_.pop_front();
    if (r.arrival > now()) proc_.block_until(r.arrival, ev_.PgbenchSelect);
    PgbenchClient& c = *r.client;
    proc_.stall(scenario_.hardware.os.socket_recv);
    if (c.next < c.txn.size()) {
      send_next(c);
      continue;
    }
    proc_.flush();
    const double latency = now() - c.txn_start;
    stats_.add(latency);
    start_transaction(c);
    send_next(c);
  }
}

} // namespace pg
