/* A small transaction-status rig for CLOG and visibility tests: WAL, CLOG, the ProcArray, heap
 * access and a few backends, with free CPU costs and scheduling so scripted timings are exact.
 * Transactions are driven step by step (GetNewTransactionId, Xact::CommitTransaction, XLogFlush),
 * and tuple versions are written directly into a relation's rows. One rig per test case (one
 * SimGrid engine per process). */
#pragma once

#include "models/backend.hpp"
#include "models/clog.hpp"
#include "models/heapam.hpp"
#include "models/lmgr.hpp"
#include "models/procarray.hpp"
#include "models/relation.hpp"
#include "models/scenario.hpp"
#include "models/transam.hpp"
#include "models/wait_event.hpp"
#include "models/xact.hpp"
#include "models/xlog.hpp"
#include "scan_rig.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"
#include "sim_harness.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace test {

/// rig_scenario's free costs and scheduling, with synchronous_commit off, the given hint-bit
/// rule and CLOG buffers, and the old LWLock and CLOG paths (no group update).
inline pg::Scenario txn_scenario(pg::HintBitRule rule, int clog_buffers = 8)
{
  pg::Scenario s                   = rig_scenario(1024);
  s.hardware.cpu.cores_per_socket  = 4;
  s.settings.synchronous_commit    = false;
  s.settings.num_clog_buffers      = clog_buffers;
  s.policies.hint_bits             = rule;
  s.policies.clog_group_update     = false;
  s.policies.procarray_group_clear = false;
  return s;
}

/// A synchronous-commit rig on `cores` cores whose WAL system calls cost no CPU: a flush takes the
/// rig device's times alone (an 8 kB page written in 150 us, its cache flushed in 1 ms).
inline pg::Scenario flush_scenario(int cores)
{
  pg::Scenario s                  = txn_scenario(pg::HintBitRule::Always);
  s.hardware.cpu.cores_per_socket = cores;
  s.hardware.os.fdatasync_cpu     = 0;
  s.hardware.os.pwrite            = 0;
  s.hardware.os.pwrite_per_kb     = 0;
  s.settings.synchronous_commit   = true;
  return s;
}

/// Runs scripts[i] on backends[i] as actors, from time 0; the run ends with the last script.
inline void run_backends(sim::Simulation& simulation, const std::vector<std::unique_ptr<pg::Backend>>& backends,
                         const std::vector<std::function<void(pg::Backend&)>>& scripts)
{
  for (std::size_t i = 0; i < scripts.size(); i++) {
    pg::Backend& b = *backends[i];
    auto body      = scripts[i];
    simulation.spawn(b.proc.name(), [&b, body]() {
      body(b);
      b.proc.exit();
    });
  }
  sim::Window w;
  w.warmup   = 0;
  w.duration = 1e6;
  simulation.run(w, nullptr, nullptr, nullptr);
}

struct TxnRig {
  explicit TxnRig(const pg::Scenario& s, int nbackends = 3)
      : scenario(s), events(names), cpu(s.hardware.cpu), wal(s.hardware.wal_device), xlog(scenario, events, wal),
        clog(scenario, events, xlog), procarray(scenario, events, clog), locks(scenario, events),
        heap(scenario, events, xlog, clog, procarray, locks), xact(scenario, xlog, clog, procarray, locks),
        logged("pgbench_branches", 100, 64, 100, true, events.BufferContent, events.BufferContent, s.policies.lwlock),
        unlogged("pgbench_branches_unlogged", 100, 64, 100, false, events.BufferContent, events.BufferContent,
                 s.policies.lwlock)
  {
    for (int i = 0; i < nbackends; i++) {
      backends.push_back(std::make_unique<pg::Backend>("backend" + std::to_string(i), i, cpu, sim::Rng(1, i)));
      procarray.ProcArrayAdd(backends.back().get());
    }
  }

  static double now() { return sim::Simulation::now(); }
  pg::Backend& backend(int i) { return *backends[static_cast<std::size_t>(i)]; }

  /// Runs one script per backend (in backend order) as actors; the run ends with the last.
  void run(const std::vector<std::function<void(pg::Backend&)>>& scripts)
  {
    run_backends(simulation, backends, scripts);
  }
  void run(const std::function<void(pg::Backend&)>& script)
  {
    run(std::vector<std::function<void(pg::Backend&)>>{script});
  }

  /// A transaction that writes one WAL record and commits asynchronously; returns its xid and
  /// (in *commit_lsn) the end of its commit record.
  pg::TransactionId commit_one(pg::Backend& me, pg::XLogRecPtr* commit_lsn = nullptr)
  {
    xact.StartTransaction(me);
    const pg::TransactionId xid = procarray.GetNewTransactionId(me);
    me.XactLastRecEnd           = xlog.XLogInsert(me, pg::XLogRecordData{100, 0});
    xact.CommitTransaction(me);
    if (commit_lsn != nullptr) *commit_lsn = xlog.insert_lsn();
    return xid;
  }

  /// A transaction of its own: its work at once, then its commit at `commit_at`.
  void commit_at(pg::Backend& me, double commit_at, const std::function<void()>& work)
  {
    xact.StartTransaction(me);
    work();
    test::at(me.proc, commit_at);
    xact.CommitTransaction(me);
    me.proc.flush();
  }

  /// A snapshot that sees every transaction below next_xid as finished.
  static void see_all(pg::Backend& me, pg::TransactionId next_xid)
  {
    me.snapshot      = pg::Snapshot{};
    me.snapshot.xmin = next_xid;
    me.snapshot.xmax = next_xid;
  }

  /// Row id of rel now holds one live version inserted by xmin, without hint bits.
  static pg::HeapRow& put_version(pg::Relation& rel, std::uint32_t id, pg::TransactionId xmin)
  {
    pg::HeapRow& row = rel.row(id);
    pg::TupleVersion v;
    v.xmin     = xmin;
    v.xmax     = pg::InvalidTransactionId;
    v.infomask = pg::HEAP_XMAX_INVALID;
    v.block    = 0;
    row.versions.assign(1, v);
    row.first_seq = 0;
    return row;
  }

  std::uint64_t shacq() const { return clog_lock_stats().shacq; }
  std::uint64_t exacq() const { return clog_lock_stats().exacq; }
  const sim::LWLockStats& clog_lock_stats() const { return const_cast<pg::Clog&>(clog).lock().stats(); }

  pg::Scenario scenario;
  sim::Simulation simulation;
  sim::WaitEventNames names;
  pg::WaitEvents events;
  sim::Cpu cpu;
  sim::Nvme wal;
  pg::Xlog xlog;
  pg::Clog clog;
  pg::ProcArray procarray;
  pg::LockManager locks;
  pg::Heapam heap;
  pg::Xact xact;
  pg::Relation logged;
  pg::Relation unlogged;
  std::vector<std::unique_ptr<pg::Backend>> backends;
};

} // namespace test
