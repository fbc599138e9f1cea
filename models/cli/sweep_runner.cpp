/* Running a sweep into its folder. */
#include "models/cli/sweep_runner.hpp"

#include "models/cli/cli.hpp"
#include "models/cli/job_files.hpp"
#include "models/cli/progress_bar.hpp"
#include "models/cli/worker_pool.hpp"
#include "models/version.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cli {

namespace {

struct Failure {
  std::size_t run = 0;
  std::string what;
};

/// The base scenario as the plan's seed and the manifest read it. A base that is complete only
/// with the varied keys (--set hardware.wal_device.stalls.duration=2ms, --vary
/// hardware.wal_device.stalls.every=...) is read with the first value of each; every point is
/// still validated on its own.
pg::Scenario read_base(const SweepRequest& req, const sim::config::Document& doc)
{
  try {
    return pg::read_scenario(doc);
  } catch (const sim::config::Error&) {
    if (req.axes.empty()) throw;
    try {
      sim::config::Document first = doc;
      for (const auto& axis : req.axes)
        if (!axis.values.empty()) first.set(axis.key + "=" + axis.values.front());
      return pg::read_scenario(first);
    } catch (const std::exception&) {
      return pg::read_scenario(doc); // report the base's own problems
    }
  }
}

/// The base scenario and the plan; nullopt (after printing why) when either is bad.
std::optional<Plan> make_plan(const SweepRequest& req, sim::config::Document& doc, nlohmann::json& resolved)
{
  try {
    doc                     = req.scenario.document();
    const pg::Scenario base = read_base(req, doc);
    resolved                = base.resolved;
    return Plan(req.axes, req.repeat, base.run.seed);
  } catch (const PlanError& e) {
    std::cerr << req.who << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    print_config_error(e);
  }
  return std::nullopt;
}

/// Every point must be a valid scenario before anything runs or any file is written.
bool validate_points(const SweepRequest& req, const Plan& plan, const sim::config::Document& doc)
{
  constexpr int kShown = 3;
  int bad              = 0;
  for (const auto& p : plan.points()) {
    try {
      sim::config::Document d = doc;
      for (const auto& a : plan.assignments(p)) d.set(a);
      pg::read_scenario(d);
    } catch (const std::exception& e) {
      if (++bad > kShown) continue;
      std::cerr << req.who << ": point " << p.index << " (" << plan.describe(p) << ") is not a valid scenario:\n";
      print_config_error(e);
    }
  }
  if (bad > kShown) std::cerr << req.who << ": ... and " << bad - kShown << " more invalid points\n";
  return bad == 0;
}

bool check_output_file(const SweepRequest& req, const std::string& option, const std::string& file)
{
  if (file.empty()) return true;
  const fs::path dir = fs::absolute(file).parent_path();
  std::error_code ec;
  if (fs::is_directory(dir, ec) && access(dir.c_str(), W_OK) == 0) return true;
  std::cerr << req.who << ": " << option << " " << file << ": directory " << dir.string()
            << " does not exist or is not writable\n";
  return false;
}

/// Creates the folder, or checks that it holds this very sweep. Returns kOk or kBadInput.
int prepare_dir(const SweepRequest& req, const SweepDir& dir, const sim::config::Document& doc,
                const nlohmann::json& manifest)
{
  std::error_code ec;
  const fs::path path(dir.path());
  try {
    if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
      std::cerr << req.who << ": --out " << dir.path() << " exists and is not a directory\n";
      return kBadInput;
    }
    auto existing = read_manifest(dir.manifest());
    if (existing && adds_replications(*existing, manifest)) {
      if (!req.quiet)
        std::cerr << req.who << ": adding replications to " << dir.path() << " (from "
                  << existing->at("/plan/repeat"_json_pointer) << " to " << manifest.at("/plan/repeat"_json_pointer)
                  << ")\n";
      write_file_atomically(dir.manifest(), manifest.dump(2) + "\n");
    } else if (existing) {
      if (const auto why = manifest_mismatch(*existing, manifest); !why.empty()) {
        std::cerr << req.who << ": " << dir.path() << " holds a different sweep: " << why
                  << ".\nUse another --out, or delete " << dir.path() << " to start afresh.\n";
        return kBadInput;
      }
    } else if (fs::exists(path, ec) && !fs::is_empty(path, ec)) {
      std::cerr << req.who << ": --out " << dir.path()
                << " is not empty and holds no sweep (no manifest.json); give a new or empty directory\n";
      return kBadInput;
    }
    fs::create_directories(dir.runs_dir());
    if (!req.slurm.empty()) fs::create_directories(dir.path() + "/slurm");
    if (!existing || !fs::exists(dir.scenario(), ec)) write_file_atomically(dir.scenario(), doc.json().dump(2) + "\n");
    // The manifest last: its presence marks a folder whose scenario is in place.
    if (!existing) write_file_atomically(dir.manifest(), manifest.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << req.who << ": --out " << dir.path() << ": " << e.what() << "\n";
    return kBadInput;
  }
  return kOk;
}

std::vector<std::size_t> selected_runs(const Plan& plan, const std::optional<Shard>& shard)
{
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < plan.runs().size(); ++i)
    if (!shard || i % shard->count == shard->index) out.push_back(i);
  return out;
}

int emit_job_files(const SweepRequest& req, const SweepDir& dir, const Plan& plan,
                   const std::vector<std::size_t>& pending)
{
  if (pending.empty()) {
    if (!req.quiet) std::cerr << req.who << ": every run is already done; no job file written\n";
    return kOk;
  }
  try {
    if (!req.emit_jobs.empty()) {
      write_file_atomically(req.emit_jobs, job_lines(dir, plan, pending));
      if (!req.quiet)
        std::cerr << req.who << ": " << pending.size() << " commands written to " << req.emit_jobs
                  << " (run them with: parallel -j N < " << req.emit_jobs << ")\n";
    }
    if (!req.slurm.empty()) {
      write_file_atomically(req.slurm, slurm_script(dir, plan, pending));
      fs::permissions(req.slurm, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
      if (!req.quiet)
        std::cerr << req.who << ": Slurm job array of " << pending.size() << " tasks written to " << req.slurm
                  << " (submit it with: sbatch " << req.slurm << ")\n";
    }
  } catch (const std::exception& e) {
    std::cerr << req.who << ": " << e.what() << "\n";
    return kFailed;
  }
  if (!req.quiet)
    std::cerr << req.who
              << ": when they are done, run this sweep command again to collect results.csv and summary.csv\n";
  return kOk;
}

std::string log_tail(const std::string& file)
{
  constexpr std::size_t kLines = 4;
  std::vector<std::string> lines;
  try {
    std::istringstream in(read_text_file(file));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  } catch (const std::exception&) {
    return "";
  }
  std::string out;
  for (std::size_t i = lines.size() > kLines ? lines.size() - kLines : 0; i < lines.size(); ++i)
    out += "\n    | " + lines[i];
  return out;
}

std::string describe_failure(const SweepDir& dir, const Plan& plan, const Failure& f)
{
  const auto& run = plan.runs().at(f.run);
  return "run " + run.id + " (" + plan.describe(plan.points().at(run.point)) + ", seed " + std::to_string(run.seed) +
         ") failed: " + f.what + "; log: " + dir.run_log(run) + log_tail(dir.run_log(run));
}

std::string failure_reason(int status, const std::string& run_file)
{
  if (status == 127) return "could not start " + worker_executable();
  if (status > 128) return "killed by signal " + std::to_string(status - 128);
  if (status == 0) {
    const std::string made_by = run_file_walsim(run_file);
    if (!made_by.empty() && made_by != pg::walsim_version())
      return "its result file was made by walsim " + made_by + ", not by this sweep's walsim " + pg::walsim_version() +
             " (was walsim rebuilt while the sweep ran?)";
    return "exited 0 but its result file is missing or incomplete";
  }
  return "exit status " + std::to_string(status);
}

/// Runs the pending runs on the worker pool. Returns the status of the sweep.
int execute(const SweepRequest& req, const SweepDir& dir, const Plan& plan, const std::vector<std::size_t>& selected,
            const std::vector<std::size_t>& pending, Records& records)
{
  const int workers = req.jobs > 0 ? req.jobs : processor_count();
  const auto start  = std::chrono::steady_clock::now();
  if (!req.quiet)
    std::cerr << req.who << ": " << selected.size() << " runs (" << plan.points().size() << " points x "
              << plan.repeat() << " replications" << (req.shard ? ", this shard's share" : "") << ") in " << dir.path()
              << ": " << selected.size() - pending.size() << " done, "
              << (pending.empty()
                      ? std::string("nothing to run")
                      : std::to_string(pending.size()) + " to run on " +
                            std::to_string(std::min<std::size_t>(static_cast<std::size_t>(workers), pending.size())) +
                            " workers")
              << "\n";

  std::vector<Job> jobs;
  for (std::size_t i : pending)
    jobs.push_back({i, worker_argv(dir, plan, plan.runs()[i]), dir.run_log(plan.runs()[i])});
  ProgressBar bar(!req.quiet && isatty(STDERR_FILENO), selected.size(), selected.size() - pending.size());
  std::vector<Failure> failures;
  const JobDone on_done = [&](const Job& job, int status, bool interrupted) {
    const auto& run = plan.runs()[job.id];
    auto record     = status == 0 ? load_run(dir.run_json(run), run.seed, pg::walsim_version()) : std::nullopt;
    if (record) {
      records[job.id] = std::move(*record);
      dir.write_tables(plan, records);
    } else if (!interrupted) {
      failures.push_back({job.id, failure_reason(status, dir.run_json(run))});
      bar.message(req.who + ": " + describe_failure(dir, plan, failures.back()));
    }
    bar.run_finished(!record && !interrupted);
  };
  const int signal = run_jobs(jobs, workers, on_done, [&bar] { bar.tick(); });
  bar.finish();
  dir.write_tables(plan, records);

  std::size_t done = 0;
  for (std::size_t i : selected) done += records.count(i);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (signal) {
    std::cerr << req.who << ": interrupted; " << done << " of " << selected.size() << " runs are done and kept in "
              << dir.path() << "; run the same command again to resume\n";
    return 128 + signal;
  }
  if (!failures.empty()) {
    std::cerr << req.who << ": " << failures.size() << " of " << pending.size() << " runs failed:\n";
    for (const auto& f : failures) std::cerr << "  " << describe_failure(dir, plan, f) << "\n";
    std::cerr << req.who << ": run the same command again to retry them\n";
    return kFailed;
  }
  if (!req.quiet)
    std::cerr << req.who << ": " << done << " of " << selected.size() << " runs done in " << ProgressBar::clock(wall)
              << "; " << dir.path() << "/results.csv and summary.csv written\n";
  return kOk;
}

} // namespace

Shard parse_shard(const std::string& text)
{
  const std::size_t slash = text.find('/');
  try {
    std::size_t used = 0;
    Shard s;
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    s.index = std::stoul(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("index");
    s.count = std::stoul(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1 || s.count == 0 || s.index >= s.count) throw std::invalid_argument("count");
    return s;
  } catch (const std::exception&) {
    throw PlanError("--shard " + text + ": expected K/N with 0 <= K < N, e.g. 0/4");
  }
}

std::string command_line(const std::string& command, const std::vector<std::string>& args)
{
  std::string line = command;
  for (const auto& a : args) line += " " + shell_quote(a);
  return line;
}

SweepOutcome run_sweep(const SweepRequest& req)
{
  SweepOutcome outcome;
  outcome.status = kBadInput;
  if (req.out.empty()) {
    std::cerr << req.who << ": --out DIR is required (the folder of the sweep's results)\n";
    return outcome;
  }
  sim::config::Document doc;
  nlohmann::json resolved;
  outcome.plan = make_plan(req, doc, resolved);
  if (!outcome.plan || !validate_points(req, *outcome.plan, doc)) return outcome;
  if (!check_output_file(req, "--emit-jobs", req.emit_jobs) || !check_output_file(req, "--slurm", req.slurm))
    return outcome;
  const Plan& plan = *outcome.plan;

  const SweepDir dir(fs::absolute(req.out).lexically_normal().string());
  const auto manifest =
      nlohmann::json::parse(make_manifest(req.scenario.file, doc.json(), resolved, plan, req.command_line).dump());
  if (const int status = prepare_dir(req, dir, doc, manifest); status != kOk) return outcome;

  std::vector<std::size_t> stale;
  outcome.records = dir.load_records(plan, pg::walsim_version(), &stale);
  for (std::size_t i : stale)
    std::cerr << req.who << ": " << dir.run_json(plan.runs()[i])
              << " is incomplete, from another seed or from another walsim build; running it again\n";
  const auto selected = selected_runs(plan, req.shard);
  std::vector<std::size_t> pending;
  for (std::size_t i : selected)
    if (!outcome.records.count(i)) pending.push_back(i);

  if (!req.emit_jobs.empty() || !req.slurm.empty()) {
    dir.write_tables(plan, outcome.records);
    outcome.status = emit_job_files(req, dir, plan, pending);
    return outcome;
  }
  outcome.status = execute(req, dir, plan, selected, pending, outcome.records);
  return outcome;
}

} // namespace cli
