/* Running a sweep into its folder: validating every point first, resuming what is done, running
 * the rest on worker processes (or writing them out for GNU parallel and Slurm), and keeping
 * results.csv and summary.csv current after every finished run. Shared by sweep and compare. */
#pragma once

#include "models/cli/result_store.hpp"
#include "models/cli/scenario_args.hpp"
#include "models/cli/sweep_plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace cli {

/// Run only the runs whose index i in the plan has i % count == index (a static split of a
/// sweep over machines, merged afterwards with walsim merge).
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
};

/// "K/N"; throws PlanError.
Shard parse_shard(const std::string& text);

struct SweepRequest {
  std::string who = "walsim sweep"; // message prefix
  ScenarioArgs scenario;            // the file and its base overrides (--set, --seed, -T ...)
  std::vector<Axis> axes;
  int repeat = 1;
  std::string out;
  int jobs   = 0; // 0: one per processor
  bool quiet = false;
  std::optional<Shard> shard;
  std::string emit_jobs; // files to write instead of running
  std::string slurm;
  std::string command_line;
};

struct SweepOutcome {
  int status = 0; // kOk, kFailed (a run failed), kBadInput, or 128 + signal when interrupted
  std::optional<Plan> plan;
  Records records;
};

SweepOutcome run_sweep(const SweepRequest& request);

/// "walsim sweep ARG ...", each argument shell-quoted, for manifests.
std::string command_line(const std::string& command, const std::vector<std::string>& args);

} // namespace cli
