/* Running a scenario: builds the machine and the server, starts pgbench, runs the warm-up and
 * the measurement window, and collects the results. One run per process (SimGrid's rule). */
#pragma once

#include "models/results.hpp"
#include "models/scenario.hpp"

#include <functional>
#include <string>
#include <vector>

namespace pg {

/// A pgbench -P progress line: elapsed seconds of the window, tps and latency since the last one.
struct Progress {
  double elapsed        = 0;
  double tps            = 0;
  double latency_avg    = 0; // seconds
  double latency_stddev = 0;
};

struct RunOptions {
  std::vector<std::string> simgrid_args;
  std::function<void(const Progress&)> on_progress;
};

RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

} // namespace pg
