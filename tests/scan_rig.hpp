/* A small server for buffer-manager and scan tests: shared_buffers, the OS page cache, the fsync
 * request queue, WAL and CLOG, one backend, with round-number costs so that scripted timings are
 * exact (up to the CPU's wake-up costs after a process blocked, which tests allow a margin for).
 * One rig per test case (one SimGrid engine per process). */
#pragma once

#include "models/buffer_manager.hpp"
#include "models/clog.hpp"
#include "models/hint_io.hpp"
#include "models/os_cache.hpp"
#include "models/scenario.hpp"
#include "models/sync_queue.hpp"
#include "models/wait_event.hpp"
#include "models/xlog.hpp"
#include "sim/cpu.hpp"
#include "sim/nvme.hpp"
#include "sim/simulation.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>

namespace test {

constexpr double us = 1e-6;
constexpr double ms = 1e-3;

/// Page cache: 1us + 1us/kB to read (9us a page), 2us + 1us/kB to write (10us), 20us of fsync CPU.
inline pg::OsCacheParams rig_os_cache(double capacity_pages)
{
  pg::OsCacheParams p;
  p.capacity_bytes = capacity_pages * pg::BLCKSZ;
  p.read_syscall   = 1 * us;
  p.read_per_kb    = 1 * us;
  p.write_syscall  = 2 * us;
  p.write_per_kb   = 1 * us;
  p.fsync_cpu      = 20 * us;
  return p;
}

/// A device with 100us reads, 50us writes, 1ms flushes and 80MB/s (100us per 8kB).
inline sim::NvmeParams rig_device()
{
  sim::NvmeParams d;
  d.queue_depth   = 4;
  d.read_latency  = 100 * us;
  d.write_latency = 50 * us;
  d.flush_latency = 1 * ms;
  d.bandwidth     = 8192.0 / (100 * us);
  return d;
}

/// A scenario with free CPU costs and scheduling, NBuffers buffers and the given queue.
inline pg::Scenario rig_scenario(int NBuffers)
{
  pg::Scenario s{};
  s.hardware.cpu.cores_per_socket = 2;
  s.hardware.cpu.idle_wakeup      = 0;
  s.hardware.cpu.context_switch   = 0;
  s.hardware.cpu.line_hit = s.hardware.cpu.line_local = s.hardware.cpu.line_remote = 0;
  s.hardware.cpu.time_slice                                                        = 1;
  s.hardware.os                                                                    = pg::OsCosts{};
  s.hardware.wal_device                                                            = rig_device();
  s.hardware.data_device                                                           = rig_device();
  s.settings.shared_buffers   = static_cast<double>(NBuffers) * pg::BLCKSZ;
  s.policies.lwlock.list_hold = 0;
  s.policies.lwlock.wake_cost = 0;
  s.run.check_invariants      = true;
  return s;
}

inline pg::SyncQueueParams rig_queue(int max_requests, bool compaction)
{
  pg::SyncQueueParams p;
  p.max_requests = max_requests;
  p.compaction   = compaction;
  p.wakeup       = pg::SyncQueueWakeup::BgWriterDelay;
  return p;
}

struct ScanRig {
  ScanRig(const pg::Scenario& s, double os_pages, const pg::SyncQueueParams& queue,
          pg::HintBitIo hint_io_policy = pg::HintBitIo::Unlimited, double hint_io_limit = 0)
      : scenario(s), events(names), cpu(s.hardware.cpu), wal(s.hardware.wal_device), data(s.hardware.data_device),
        xlog(scenario, events, wal), clog(scenario, events, xlog),
        pool(static_cast<int>(s.settings.shared_buffers / pg::BLCKSZ)),
        os(rig_os_cache(os_pages), pg::OsCacheEvents{events.IoDataFileRead, events.IoDataFileWrite, 1}, data),
        sync(queue, events.BufferContent, s.policies.lwlock),
        bufmgr(pool, os, sync, xlog, pg::BufferCosts{}, s.settings.wal_log_hints),
        backend("backend", 0, cpu, sim::Rng(1, 0)),
        hint_io(pg::make_hint_bit_io_policy(hint_io_policy, hint_io_limit)), io{backend, *hint_io, counters}
  {
  }

  /// Runs body as the backend's actor; the simulation ends with it.
  void run(const std::function<void()>& body)
  {
    simulation.spawn("backend", [this, body]() {
      body();
      backend.proc.exit();
      simgrid::s4u::Actor::kill_all();
    });
    sim::Window w;
    w.warmup   = 0;
    w.duration = 1e6;
    simulation.run(w, nullptr, nullptr, nullptr);
  }

  pg::Scenario scenario;
  sim::Simulation simulation;
  sim::WaitEventNames names;
  pg::WaitEvents events;
  sim::Cpu cpu;
  sim::Nvme wal;
  sim::Nvme data;
  pg::Xlog xlog;
  pg::Clog clog;
  pg::BufferPool pool;
  pg::OsPageCache os;
  pg::SyncRequestQueue sync;
  pg::BufferManager bufmgr;
  pg::Backend backend;
  std::unique_ptr<pg::HintBitIoPolicy> hint_io;
  pg::IoCounters counters;
  pg::BackendIo io;
};

} // namespace test
