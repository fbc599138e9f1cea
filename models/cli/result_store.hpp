/* A sweep's folder: manifest.json (what the sweep is), scenario.json (the scenario every run
 * reads, frozen when the sweep started), runs/ID.json and runs/ID.log (one per run, written by
 * `walsim run`), results.csv and summary.csv. Every file is written atomically, so a folder can
 * be read, resumed or merged at any moment, even while a sweep is writing it. */
#pragma once

#include "models/cli/run_record.hpp"
#include "models/cli/sweep_plan.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cli {

class SweepDir {
public:
  explicit SweepDir(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string manifest() const { return path_ + "/manifest.json"; }
  std::string scenario() const { return path_ + "/scenario.json"; }
  std::string runs_dir() const { return path_ + "/runs"; }
  std::string run_json(const PlannedRun& r) const { return runs_dir() + "/" + r.id + ".json"; }
  std::string run_log(const PlannedRun& r) const { return runs_dir() + "/" + r.id + ".log"; }

  /// The complete runs of the plan made by walsim version `walsim`. A run file that is
  /// unreadable, belongs to another seed or was made by another build is not complete; its index
  /// goes to *stale (it will be run again).
  Records load_records(const Plan& plan, const std::string& walsim, std::vector<std::size_t>* stale = nullptr) const;
  /// Writes results.csv and summary.csv (atomically).
  void write_tables(const Plan& plan, const Records& records) const;

private:
  std::string path_;
};

/// The figures of a finished run file, or nullopt when it is missing, is not whole JSON, is not
/// the run of this seed, or was made by another walsim version than `walsim`: a sweep's figures
/// must all come from one build, even if the binary is rebuilt while the sweep runs.
std::optional<RunRecord> load_run(const std::string& file, std::uint64_t seed, const std::string& walsim);

/// The walsim version a run file says made it, or "" when it is unreadable or says none.
std::string run_file_walsim(const std::string& file);

/// What a sweep is: the scenario document (with its base overrides), the plan and the simulator
/// version, plus the command line and the resolved scenario for the record.
nlohmann::ordered_json make_manifest(const std::string& scenario_file, const nlohmann::json& document,
                                     const nlohmann::json& resolved, const Plan& plan, const std::string& command_line);

/// Reads a manifest; nullopt when the file does not exist. Throws std::runtime_error when it
/// exists but is not a manifest.
std::optional<nlohmann::json> read_manifest(const std::string& file);

/// Empty when two manifests describe the same sweep, else what differs, for an error message.
std::string manifest_mismatch(const nlohmann::json& existing, const nlohmann::json& wanted);

/// True when wanted is existing with more replications: the runs done so far keep their seeds
/// and names, so the sweep can grow in place.
bool adds_replications(const nlohmann::json& existing, const nlohmann::json& wanted);

/// Reads a whole file; throws std::runtime_error naming the file.
std::string read_text_file(const std::string& file);

} // namespace cli
