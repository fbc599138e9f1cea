/* walsim run: simulate one scenario. */
#include "models/cli/cli.hpp"
#include "models/cli/scan_command.hpp"
#include "models/cli/scenario_args.hpp"
#include "models/report.hpp"
#include "models/run.hpp"
#include "sim/simulation.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace po = boost::program_options;

namespace cli {

namespace {

const char* kRunUsage = "usage: walsim run SCENARIO.json [options]\n\n"
                        "Simulates the scenario and prints a pgbench-style summary, the server's LWLock\n"
                        "statistics and wait events. Everything but the host's wall time is determined by\n"
                        "the scenario and its seed.\n";

void check_output_path(const std::string& path)
{
  const auto dir = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("--json " + path + ": directory " + dir.string() + " does not exist");
  if (access(dir.c_str(), W_OK) != 0)
    throw std::runtime_error("--json " + path + ": directory " + dir.string() + " is not writable");
}

} // namespace

void write_file_atomically(const std::string& path, const std::string& text)
{
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

int run_command(const std::vector<std::string>& args)
{
  ScenarioArgs scenario_args;
  po::options_description desc("run options");
  scenario_args.add_options(desc);
  desc.add_options()("help,h", "this help")("json", po::value<std::string>(),
                                            "write every result as JSON to this file (atomically)")(
      "reproducible", "leave the host's wall time and memory out of the JSON, so it is byte-identical between runs")(
      "progress,P", po::value<std::string>(),
      "pgbench -P: a progress line every so many simulated seconds, with the wall time so far and an ETA, e.g. 5s")(
      "quiet,q", "no progress or timing lines on stderr")("sg-cfg", po::value<std::vector<std::string>>()->composing(),
                                                          "pass a --cfg=... option to SimGrid (expert)");
  po::variables_map vm;
  if (const auto done = parse_scenario_command("run", kRunUsage, desc, args, scenario_args, vm)) return *done;
  if (vm.count("progress")) scenario_args.sets.push_back("pgbench.progress=" + vm["progress"].as<std::string>());
  const bool quiet = vm.count("quiet") > 0;

  pg::Scenario scenario;
  std::string json_path;
  try {
    scenario = scenario_args.load();
    if (vm.count("json")) {
      json_path = vm["json"].as<std::string>();
      check_output_path(json_path);
    }
  } catch (const std::exception& e) {
    print_config_error(e);
    return kBadInput;
  }

  pg::RunOptions options;
  if (vm.count("sg-cfg"))
    for (const auto& c : vm["sg-cfg"].as<std::vector<std::string>>()) options.simgrid_args.push_back("--cfg=" + c);
  if (!quiet) {
    // pgbench's line, then how long the simulation has run and how long it still needs, at the
    // wall-clock rate so far (warm-up included).
    const auto started  = std::chrono::steady_clock::now();
    const double warmup = scenario.run.warmup, duration = scenario.run.duration;
    options.on_progress = [started, warmup, duration](const pg::Progress& p) {
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const double eta  = wall / (warmup + p.elapsed) * std::max(0.0, duration - p.elapsed);
      std::fprintf(stderr, "progress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f (wall %.1f s, ETA %.1f s)\n", p.elapsed,
                   p.tps, p.latency_avg * 1e3, p.latency_stddev * 1e3, wall, eta);
    };
  }
  if (scenario.run.workload == "seqscan")
    return run_scan_command(scenario, options.simgrid_args, json_path, vm.count("reproducible") > 0, quiet);
  pg::RunResult result;
  if (const int status = run_simulation([&] { result = pg::run_scenario(scenario, options); }); status != kOk)
    return status;
  pg::print_summary(std::cout, result);
  if (!quiet)
    std::fprintf(stderr,
                 "walsim: simulated %.1f s in %.2f s of wall time (%.0f transactions per wall second), "
                 "peak memory %ld MB\n",
                 scenario.run.warmup + scenario.run.duration, result.wall_seconds,
                 result.wall_seconds > 0 ? static_cast<double>(result.all_transactions) / result.wall_seconds : 0,
                 result.peak_rss_kb / 1024);
  if (!json_path.empty()) {
    try {
      write_file_atomically(json_path, pg::to_json(result, !vm.count("reproducible")).dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "walsim: " << e.what() << "\n";
      return kFailed;
    }
  }
  return kOk;
}

} // namespace cli
