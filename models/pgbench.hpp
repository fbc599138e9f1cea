/* pgbench (src/bin/pgbench/pgbench.c): its tables as pgbench -i creates them, its built-in
 * scripts as commands, and its client threads (-c clients served by -j threads, each an event
 * loop that reads a result and sends the client's next command). */
#pragma once

#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/wait_event.hpp"
#include "sim/proc.hpp"
#include "sim/rng.hpp"
#include "sim/stats.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace pg {

class Connection;

enum class CommandKind : std::uint8_t {
  Begin,
  End,
  UpdateAccounts,
  SelectAccounts,
  UpdateTellers,
  UpdateBranches,
  InsertHistory,
  TpcbFunc,   // SELECT tpcb_func(...): the tpcb-like transaction as one server-side call
  InsertRows, // the insert-only script's INSERT of several rows
};

struct Command {
  CommandKind kind  = CommandKind::Begin;
  std::uint32_t aid = 0;
  std::uint32_t tid = 0;
  std::uint32_t bid = 0;
};

/// The four tables of pgbench -i at a scale factor, and the insert-only script's table.
struct PgbenchTables {
  /// The tables as pgbench -i and the scenario's earlier transactions (seeded by `seed`) left them.
  PgbenchTables(const PgbenchSpec& spec, std::uint64_t seed, const WaitEvents& events,
                const sim::LWLockParams& lock_params);
  Relation branches;
  Relation tellers;
  Relation accounts;
  Relation history;
  Relation bulk;
};

/// The commands of one transaction of the scenario's script, with pgbench's random draws.
void build_transaction(const PgbenchSpec& spec, sim::Rng& rng, std::vector<Command>& out);
/// The transaction ids pgbench.prior_transactions used: one each, unless the script only reads.
std::uint64_t prior_xids(const PgbenchSpec& spec);

/// Transactions completed in the measurement window, and their latencies.
struct PgbenchStats {
  std::uint64_t transactions = 0;
  sim::Moments latency;
  sim::Histogram latency_hist;
  sim::Moments interval;              // since the last progress report (pgbench -P)
  std::uint64_t all_transactions = 0; // never reset
  void add(double seconds)
  {
    transactions++;
    all_transactions++;
    latency.add(seconds);
    latency_hist.add(seconds);
    interval.add(seconds);
  }
  void reset()
  {
    transactions = 0;
    latency.reset();
    latency_hist.reset();
    interval.reset();
  }
};

class PgbenchThread;

/// One pgbench client: a connection and the transaction it is running.
struct PgbenchClient {
  int id                = 0;
  Connection* conn      = nullptr;
  PgbenchThread* thread = nullptr;
  std::vector<Command> txn;
  std::size_t next = 0;
  double txn_start = 0;
  sim::Rng rng{0, 0};
};

/// A pgbench thread (-j): an event loop serving its clients' connections.
class PgbenchThread {
public:
  PgbenchThread(int id, sim::Cpu& cpu, const Scenario& scenario, const WaitEvents& events, PgbenchStats& stats);

  void add_client(PgbenchClient* client) { clients_.push_back(client); }
  /// The server's reply to client, arriving at `arrival`.
  void deliver(PgbenchClient* client, double arrival);
  void main();
  sim::Proc& proc() { return proc_; }

private:
  void start_transaction(PgbenchClient& c);
  void send_next(PgbenchClient& c);

  sim::Proc proc_;
  const Scenario& scenario_;
  const WaitEvents& ev_;
  PgbenchStats& stats_;
  std::vector<PgbenchClient*> clients_;
  struct Reply {
    PgbenchClient* client;
    double arrival;
  };
  std::deque<Reply> replies_;
};

} // namespace pg
