/* Wiring a server together (postmaster.c's job). */
#include "models/server.hpp"

#include "models/pgbench.hpp"
#include "models/shmem.hpp"

namespace pg {

namespace {
// Stream keys keep each process's random draws independent of how many others there are.
constexpr std::uint64_t kWalWriterStream    = 0x57414c57;
constexpr std::uint64_t kCheckpointerStream = 0x434b5054;
constexpr std::uint64_t kBgWriterStream     = 0x42475752;
} // namespace

Server::Server(const Scenario& s, sim::Cpu& cpu, sim::Nvme& wal_device, sim::WaitEventNames& names)
    : scenario(s), events(names), xlog(s, events, wal_device), clog(s, events, xlog), procarray(s, events, clog),
      locks(s, events), heapam(s, events, xlog, clog, procarray, locks), xact(s, xlog, clog, procarray, locks),
      tables(s.pgbench, s.run.seed, events, s.policies.lwlock),
      shared_buffers(s, events, xlog), context{s, events, procarray, heapam, xact, tables},
      walwriter_backend("walwriter", s.pgbench.clients, cpu, sim::Rng(s.run.seed, kWalWriterStream)),
      walwriter(walwriter_backend, xlog, s, events),
      checkpointer_backend("checkpointer", s.pgbench.clients + 1, cpu, sim::Rng(s.run.seed, kCheckpointerStream)),
      checkpointer(checkpointer_backend, xlog, s, names.intern("Activity:CheckpointerMain")), cpu_(cpu)
{
  xlog.set_walwriter(&walwriter.latch());
  walwriter_backend.proc.set_allowed_cpus(s.hardware.os.server_cpus);
  checkpointer_backend.proc.set_allowed_cpus(s.hardware.os.server_cpus);
  // pgbench -i gives branches, tellers and accounts a primary key; history and the insert-only
  // table have none.
  for (Relation* r : {&tables.branches, &tables.tellers, &tables.accounts}) shared_buffers.add_relation(*r, true);
  for (Relation* r : {&tables.history, &tables.bulk}) shared_buffers.add_relation(*r, false);
  shared_buffers.start();
  heapam.set_shared_buffers(&shared_buffers);
  if (shared_buffers.active()) {
    bgwriter_backend =
        std::make_unique<Backend>("bgwriter", s.pgbench.clients + 3, cpu, sim::Rng(s.run.seed, kBgWriterStream));
    bgwriter_backend->proc.set_allowed_cpus(s.hardware.os.server_cpus);
    bgwriter = std::make_unique<BgWriterLru>(*bgwriter_backend, shared_buffers, s.settings.bgwriter_delay,
                                             names.intern("Activity:BgWriterMain"));
  }
  if (s.hardware.os.kblockd_dispatch >= 0) {
    kblockd = std::make_unique<Kblockd>(s.pgbench.clients + 2, cpu, wal_device, s.hardware.os.kblockd_dispatch,
                                        names.intern("Activity:Kblockd"));
    xlog.set_kblockd(kblockd.get());
  }
  xlog.set_active_backends([this](const Backend& me, int min) { return procarray.MinimumActiveBackends(&me, min); });
  procarray.ProcArrayAdd(&walwriter_backend);
  procarray.ProcArrayAdd(&checkpointer_backend);
}

namespace {

// The client's round trips per transaction: each one runs the backend once, so the pages of shared
// memory a transaction touches are spread over them.
double round_trips_per_transaction(const PgbenchSpec& spec)
{
  std::vector<Command> commands;
  sim::Rng rng(0, 0);
  build_transaction(spec, rng, commands);
  return static_cast<double>(std::max<std::size_t>(1, commands.size()));
}

} // namespace

Connection& Server::connect()
{
  const int pgprocno = static_cast<int>(backends.size());
  backends.push_back(std::make_unique<Backend>("backend " + std::to_string(pgprocno), pgprocno, cpu_,
                                               sim::Rng(scenario.run.seed, static_cast<std::uint64_t>(pgprocno))));
  // A client's backend, as pgbench's are: the processes whose caches many clients crowd out.
  backends.back()->proc.set_working_set(scenario.costs.backend_working_set);
  const auto& pages = scenario.settings.huge_pages ? scenario.costs.shared_huge_pages_per_transaction
                                                   : scenario.costs.shared_pages_per_transaction;
  backends.back()->proc.set_translation_set(pages.at(scenario.pgbench.script) /
                                            round_trips_per_transaction(scenario.pgbench));
  backends.back()->proc.set_allowed_cpus(scenario.hardware.os.server_cpus);
  // pgbench connects as its run starts: each backend is a new process with no mappings of shared
  // memory, which the server's long-lived processes have long made.
  // (With huge pages a backend faults once per 2 MB: too rarely to model.)
  if (scenario.hardware.os.page_faults.enabled() && !scenario.settings.huge_pages)
    backends.back()->page_table = std::make_unique<sim::PageTable>(scenario.hardware.os.page_faults, shmem::kSegments);
  procarray.ProcArrayAdd(backends.back().get());
  connections.push_back(std::make_unique<Connection>(*backends.back(), context));
  return *connections.back();
}

void Server::reset_stats()
{
  xlog.reset_stats();
  clog.stats().reset();
  clog.lock().stats()             = sim::LWLockStats();
  procarray.lock().stats()        = sim::LWLockStats();
  procarray.xidgen_lock().stats() = sim::LWLockStats();
  heapam.hint_stats().reset();
  shared_buffers.stats().reset();
  xact.reset_stats();
  walwriter.reset_stats();
  for (auto& b : backends)
    if (b->page_table) b->page_table->reset_stats();
  for (Relation* r : {&tables.branches, &tables.tellers, &tables.accounts, &tables.history, &tables.bulk}) {
    r->stats().reset();
    r->reset_content_lock_stats();
  }
}

} // namespace pg
