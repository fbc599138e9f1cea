/* Commands for GNU parallel and Slurm job arrays. */
#include "models/cli/job_files.hpp"

#include <cstdlib>
#include <filesystem>

namespace cli {

std::string worker_executable()
{
  if (const char* worker = std::getenv("WALSIM_SWEEP_WORKER"); worker && *worker) return worker;
  // The resolved path, not /proc/self/exe, so that emitted commands work in other processes.
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

std::vector<std::string> worker_argv(const SweepDir& dir, const Plan& plan, const PlannedRun& run)
{
  std::vector<std::string> argv = {worker_executable(), "run", dir.scenario()};
  for (const auto& a : plan.assignments(plan.points().at(run.point))) {
    argv.push_back("--set");
    argv.push_back(a);
  }
  argv.insert(argv.end(), {"--seed", std::to_string(run.seed), "--json", dir.run_json(run)});
  return argv;
}

std::string shell_quote(const std::string& word)
{
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-./=:+,@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string shell_command(const std::vector<std::string>& argv)
{
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + shell_quote(word);
  return line;
}

std::string job_lines(const SweepDir& dir, const Plan& plan, const std::vector<std::size_t>& runs)
{
  std::string out;
  for (std::size_t i : runs) {
    const auto& run = plan.runs().at(i);
    out += shell_command(worker_argv(dir, plan, run)) + " > " + shell_quote(dir.run_log(run)) + " 2>&1\n";
  }
  return out;
}

std::string slurm_script(const SweepDir& dir, const Plan& plan, const std::vector<std::size_t>& runs)
{
  std::string out = "#!/bin/bash\n"
                    "# walsim sweep of " +
                    dir.path() + ": " + std::to_string(runs.size()) +
                    " runs as a Slurm job array, one run per task.\n"
                    "# Submit with: sbatch THIS_FILE (options given to sbatch override the lines below).\n"
                    "# When every task is done, rerun the sweep command: it finds the runs done and writes\n"
                    "# results.csv and summary.csv. Slurm's default MaxArraySize allows 1001 tasks.\n"
                    "#SBATCH --job-name=walsim-sweep\n"
                    "#SBATCH --array=0-" +
                    std::to_string(runs.size() - 1) +
                    "\n"
                    "#SBATCH --ntasks=1\n"
                    "#SBATCH --cpus-per-task=1\n"
                    "#SBATCH --output=" +
                    dir.path() +
                    "/slurm/%A_%a.out\n"
                    "set -eu\n"
                    "commands=(\n";
  for (std::size_t i : runs) {
    const auto& run = plan.runs().at(i);
    out += shell_quote(shell_command(worker_argv(dir, plan, run)) + " > " + shell_quote(dir.run_log(run)) + " 2>&1") +
           "\n";
  }
  out += ")\n"
         "eval \"${commands[$SLURM_ARRAY_TASK_ID]}\"\n";
  return out;
}

} // namespace cli
