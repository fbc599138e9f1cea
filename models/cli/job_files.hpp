/* Running a sweep's runs elsewhere: the command of each run, as a line of shell for GNU
 * parallel (--emit-jobs) or a task of a Slurm job array (--slurm). Each command is exactly what
 * the local worker pool executes, so a run gives the same bytes wherever it runs. */
#pragma once

#include "models/cli/result_store.hpp"
#include "models/cli/sweep_plan.hpp"

#include <string>
#include <vector>

namespace cli {

/// The walsim binary that runs each point: $WALSIM_SWEEP_WORKER when set (a wrapper such as a
/// profiler, or a test double), else this very executable.
std::string worker_executable();

/// argv of the `walsim run` that executes one planned run into dir.
std::vector<std::string> worker_argv(const SweepDir& dir, const Plan& plan, const PlannedRun& run);

/// Quotes a word for POSIX sh (single quotes, ' written as '\'').
std::string shell_quote(const std::string& word);
std::string shell_command(const std::vector<std::string>& argv);

/// One line per run: the command with its output redirected to the run's log.
std::string job_lines(const SweepDir& dir, const Plan& plan, const std::vector<std::size_t>& runs);

/// A bash script for sbatch: a job array with one task per run, task i running line i.
std::string slurm_script(const SweepDir& dir, const Plan& plan, const std::vector<std::size_t>& runs);

} // namespace cli
