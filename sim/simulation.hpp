/* Run control: the SimGrid engine, the one host every actor lives on, and the measurement window.
 *
 * A SimGrid engine cannot be created twice in a process, so there is one Simulation per process.
 * Actors are daemons: the run ends when the control actor has seen the warm-up and the
 * measurement window through, and the daemons are then killed where they stand. walsim does not
 * use SimGrid's CPU model (see cpu.hpp), so a single host suffices.
 */
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simgrid::s4u {
class Engine;
class Host;
} // namespace simgrid::s4u

namespace sim {

struct Window {
  double warmup   = 0; // seconds simulated before measuring
  double duration = 1; // seconds measured
  double progress = 0; // every this many seconds call on_progress (0: never)
};

class Simulation {
public:
  /// Creates the engine. args are passed to SimGrid (e.g. --cfg=...); logging is quiet unless
  /// an argument overrides it.
  explicit Simulation(const std::vector<std::string>& args = {});
  ~Simulation();
  Simulation(const Simulation&)            = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Starts an actor running body; it is killed when the run ends.
  void spawn(const std::string& name, std::function<void()> body);
  /// Runs warm-up then the window: on_measure at its start, on_progress(t) every
  /// window.progress seconds, on_end at its end (with every actor still in place).
  void run(const Window& window, const std::function<void()>& on_measure,
           const std::function<void(double)>& on_progress, const std::function<void()>& on_end);

  static double now();
  /// Wall-clock seconds spent in run().
  double wall_seconds() const { return wall_seconds_; }

private:
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  simgrid::s4u::Host* host_ = nullptr;
  double wall_seconds_      = 0;
};

/// Peak resident memory of this process in kB (VmHWM), 0 if unknown.
long peak_rss_kb();

} // namespace sim
