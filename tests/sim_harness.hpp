/* A small harness for engine-level tests: one Simulation per test case (ctest runs each test case
 * in its own process), a CPU, and processes whose scripted bodies run as actors. */
#pragma once

#include "sim/cpu.hpp"
#include "sim/proc.hpp"
#include "sim/simulation.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace test {

/// A CPU with no scheduling latencies and free cache lines, so scripted timings are exact.
inline sim::CpuParams quiet_cpu(int cores)
{
  sim::CpuParams p;
  p.cores_per_socket = cores;
  p.idle_wakeup      = 0;
  p.idle_wakeup_cpu  = 0;
  p.context_switch   = 0;
  p.line_hit = p.line_local = p.line_remote = 0;
  p.time_slice                              = 1.0;
  return p;
}

class Harness {
public:
  explicit Harness(const sim::CpuParams& params) : cpu(params) {}

  sim::Proc& proc(const std::string& name)
  {
    procs.push_back(std::make_unique<sim::Proc>(name, static_cast<int>(procs.size()), cpu));
    return *procs.back();
  }
  void start(sim::Proc& p, std::function<void(sim::Proc&)> body)
  {
    simulation.spawn(p.name(), [&p, body]() {
      body(p);
      p.exit();
    });
  }
  void run(double seconds)
  {
    sim::Window w;
    w.duration = seconds;
    simulation.run(w, nullptr, nullptr, nullptr);
  }
  static double now() { return sim::Simulation::now(); }

  sim::Simulation simulation;
  sim::Cpu cpu;
  std::vector<std::unique_ptr<sim::Proc>> procs;
};

/// Sleeps the calling actor until absolute time t, off-CPU (a script's "at t, do ...").
inline void at(sim::Proc& p, double t)
{
  p.block_until(t, sim::kCpu);
}

} // namespace test
