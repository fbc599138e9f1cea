/* Worker processes for sweeps. SimGrid runs one simulation per process, so each run is its own
 * `walsim run` process; at most N run at once. SIGINT, SIGTERM and SIGHUP stop the launching of
 * new runs, are passed on to the running ones, and end the pool once they have exited. */
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cli {

struct Job {
  std::size_t id = 0;
  std::vector<std::string> argv;
  std::string log; // the worker's stdout and stderr
};

/// How a worker ended: its exit status, or 128 + the signal that killed it; 127 when it could
/// not be started at all. interrupted: it ended after the pool was interrupted (its failure is
/// the interruption's, not its own).
using JobDone = std::function<void(const Job&, int status, bool interrupted)>;

/// Runs the jobs, `parallel` at a time, in order. on_done is called after each ends, on_tick about
/// once a second. Returns 0, or the signal number that interrupted the pool.
int run_jobs(const std::vector<Job>& jobs, int parallel, const JobDone& on_done, const std::function<void()>& on_tick);

/// The number of online processors (at least 1).
int processor_count();

} // namespace cli
