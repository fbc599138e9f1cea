/* Run control: the SimGrid engine, the one host every actor lives on, and the measurement window.
 *
 * A SimGrid engine cannot be created twice in a process, so there is one Simulation per process.
 * Actors are daemons: the run ends when the control actor has seen the warm-up and the
 * measurement window through, and the daemons are then killed where they stand. walsim does not
 * use SimGrid's CPU model (see cpu.hpp), so a single host suffices.
 *
 * Deadlocks. SimGrid declares a deadlock when actors remain but nothing can happen any more: no
 * actor can run and no timed activity is pending. It then kills every actor and returns as if
 * the run had ended. Simulation turns that into a report on stderr (a header, the actors still
 * alive, then whatever the on_deadlock hooks print: a model's lock holders and waiters) and a
 * Deadlock exception out of run(), so that no result is ever produced from a deadlocked run.
 * While a bounded window is open its end is itself a pending timed event, so SimGrid can only see
 * a deadlock in run_to_completion(); code that finds a deadlock by itself (a wait-for cycle)
 * reports it through declare_deadlock().
 */
#pragma once

#include <simgrid/forward.h>

#include <exception>
#include <functional>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim {

struct Window {
  double warmup   = 0; // seconds simulated before measuring
  double duration = 1; // seconds measured
  double progress = 0; // every this many seconds call on_progress (0: never)
};

/// Thrown by run() and run_to_completion() when the simulation deadlocked; the report (see
/// Simulation::on_deadlock) has been written to stderr by then. A logic_error: a deadlock is a
/// bug in a model, whatever the scenario.
class Deadlock : public std::logic_error {
public:
  explicit Deadlock(const std::string& what) : std::logic_error(what) {}
};

/// SimGrid refused an option passed to its engine (walsim run --sg-cfg): bad input, not a bug.
class EngineOptionError : public std::invalid_argument {
public:
  explicit EngineOptionError(const std::string& what) : std::invalid_argument(what) {}
};

class Simulation {
public:
  /// Prints part of a deadlock report (e.g. a model's lock holders and waiters).
  using DeadlockHook = std::function<void(std::ostream&)>;

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
  /// Runs until every spawned actor has returned, however long that takes in simulated time:
  /// for scripted runs that end by themselves. Here SimGrid sees a deadlock as soon as every
  /// remaining actor waits for a wake-up that nobody can send.
  void run_to_completion();

  /// Adds a hook to the deadlock report; hooks print in the order they were added.
  void on_deadlock(DeadlockHook hook);
  /// Declares the run deadlocked from inside an actor, for code that detects a deadlock SimGrid
  /// cannot see (one with timed activities still pending, such as the end of the window): the
  /// report is printed with reason in its header, every actor is killed, the calling one included,
  /// and run() throws Deadlock.
  [[noreturn]] static void declare_deadlock(const std::string& reason);
  bool deadlocked() const { return deadlocked_; }

  static double now();
  /// Wall-clock seconds spent in run().
  double wall_seconds() const { return wall_seconds_; }

private:
  void run_engine();
  void report_deadlock(const std::string& reason);

  std::unique_ptr<simgrid::s4u::Engine> engine_;
  simgrid::s4u::Host* host_ = nullptr;
  std::vector<DeadlockHook> deadlock_hooks_;
  bool deadlocked_      = false;
  double deadlock_time_ = 0;
  int running_actors_   = 0;       // spawned and not returned
  std::exception_ptr actor_error_; // the first exception that left an actor
  double wall_seconds_ = 0;
  simgrid::s4u::SemaphorePtr all_returned_; // released when running_actors_ drops to 0
};

/// Peak resident memory of this process in kB (VmHWM), 0 if unknown.
long peak_rss_kb();

} // namespace sim
