/* walsim-bench: how fast walsim simulates on this machine, against what the bare engine can do.
 *
 * In one run it measures (a) simulated pgbench transactions per wall-clock second for a shipped
 * scenario, through the same pg::run_scenario as walsim run, and (b) the raw rate of the SimGrid
 * engine here: as many actors as the scenario has clients, each doing cycles of s4u::Mutex lock,
 * a short sleep_for, unlock and another sleep_for. Their ratio (c) says how much work walsim
 * puts into a transaction, in engine lock cycles, independently of the host's speed.
 *
 * SimGrid allows one engine per process, so (b) runs in a child process: this program re-executes
 * itself with the hidden --engine-only option. Timings vary from run to run and host to host;
 * this is a benchmark, never a test.
 */
#include "models/cli/cli.hpp"
#include "models/cli/scenario_args.hpp"
#include "models/run.hpp"
#include "models/version.hpp"
#include "sim/lookahead.hpp"
#include "sim/simulation.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace po = boost::program_options;

namespace {

const char* kUsage = "usage: walsim-bench [SCENARIO.json] [options]\n\n"
                     "Measures simulated transactions per wall second for a scenario (by default\n"
                     "scenarios/xloginsert-locks-2024.json, else scenarios/local-pg15-tpcb.json, relative to\n"
                     "the current directory), the raw SimGrid engine rate on this machine (lock / sleep /\n"
                     "unlock / sleep cycles, one actor per client, in a child process) and their ratio.\n"
                     "A benchmark: it prints timings and never fails on them.\n";

const char* kDefaultScenarios[] = {"scenarios/xloginsert-locks-2024.json", "scenarios/local-pg15-tpcb.json"};

/// The engine's own cost of one contended lock cycle: each actor holds the mutex and then thinks
/// for these simulated durations.
constexpr double kHoldSeconds  = 1e-6;
constexpr double kThinkSeconds = 5e-6;
/// lock, sleep_for, unlock, sleep_for: each is one simcall of the actor.
constexpr int kSimcallsPerCycle = 4;

struct ScenarioRate {
  std::string file;
  int clients                    = 0;
  double simulated_seconds       = 0;
  double wall_seconds            = 0;
  std::uint64_t transactions     = 0; // warm-up included: all the work simulated
  double transactions_per_second = 0; // per wall second
  double cpu_seconds             = 0; // of this process, setting up the tables included
  long peak_rss_kb               = 0;
  sim::lookahead::SkipCounts skips; // stretches of CPU work run without an engine sleep
};

struct EngineRate {
  int actors                 = 0;
  std::uint64_t cycles       = 0;
  double wall_seconds        = 0;
  double cycles_per_second   = 0; // per wall second
  double simcalls_per_second = 0;
  double cpu_seconds         = 0;
  long peak_rss_kb           = 0;
};

// On a shared machine wall time includes waiting for a core; the process's CPU time does not.
double process_cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// --- (b) the bare engine, in the child process ------------------------------------------------

EngineRate measure_engine(int actors, std::uint64_t total_cycles)
{
  std::vector<std::string> args_store{"walsim-bench", "--log=root.thresh:critical", "--cfg=contexts/factory:raw"};
  std::vector<char*> argv;
  for (auto& a : args_store) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  simgrid::s4u::Engine engine(&argc, argv.data());
  auto* zone = simgrid::s4u::create_full_zone("machine");
  auto* host = zone->create_host("server", 1e9);
  zone->seal();

  auto mutex              = simgrid::s4u::Mutex::create();
  std::uint64_t completed = 0;
  for (int i = 0; i < actors; i++)
    simgrid::s4u::Actor::create("actor-" + std::to_string(i), host, [&mutex, &completed, total_cycles]() {
      while (completed < total_cycles) {
        mutex->lock();
        simgrid::s4u::this_actor::sleep_for(kHoldSeconds);
        mutex->unlock();
        simgrid::s4u::this_actor::sleep_for(kThinkSeconds);
        completed++;
      }
    });
  const auto t0   = std::chrono::steady_clock::now();
  const double c0 = process_cpu_seconds();
  engine.run();
  EngineRate rate;
  rate.cpu_seconds         = process_cpu_seconds() - c0;
  rate.actors              = actors;
  rate.cycles              = completed;
  rate.wall_seconds        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rate.cycles_per_second   = rate.wall_seconds > 0 ? static_cast<double>(completed) / rate.wall_seconds : 0;
  rate.simcalls_per_second = rate.cycles_per_second * kSimcallsPerCycle;
  rate.peak_rss_kb         = sim::peak_rss_kb();
  return rate;
}

nlohmann::ordered_json to_json(const EngineRate& r)
{
  return {{"actors", r.actors},
          {"cycles", r.cycles},
          {"hold_seconds", kHoldSeconds},
          {"think_seconds", kThinkSeconds},
          {"wall_seconds", r.wall_seconds},
          {"cycles_per_wall_second", r.cycles_per_second},
          {"simcalls_per_cycle", kSimcallsPerCycle},
          {"simcalls_per_wall_second", r.simcalls_per_second},
          {"cpu_seconds", r.cpu_seconds},
          {"peak_rss_kb", r.peak_rss_kb}};
}

EngineRate engine_from_json(const nlohmann::json& j)
{
  EngineRate r;
  r.actors              = j.at("actors").get<int>();
  r.cycles              = j.at("cycles").get<std::uint64_t>();
  r.wall_seconds        = j.at("wall_seconds").get<double>();
  r.cycles_per_second   = j.at("cycles_per_wall_second").get<double>();
  r.simcalls_per_second = j.at("simcalls_per_wall_second").get<double>();
  r.cpu_seconds         = j.at("cpu_seconds").get<double>();
  r.peak_rss_kb         = j.at("peak_rss_kb").get<long>();
  return r;
}

// --- running the child ------------------------------------------------------------------------

/// Runs this program again with args; returns its standard output. Throws if it fails.
std::string run_self(const std::vector<std::string>& args)
{
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe() failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);

  std::vector<std::string> argv_store{self};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid       = 0;
  const int error = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("cannot start " + self);
  }
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("the engine measurement (" + self + " --engine-only) failed");
  return out;
}

// --- (a) the scenario, in this process --------------------------------------------------------

ScenarioRate measure_scenario(const pg::Scenario& scenario)
{
  const double c0            = process_cpu_seconds();
  const pg::RunResult result = pg::run_scenario(scenario, pg::RunOptions{});
  ScenarioRate rate;
  rate.cpu_seconds       = process_cpu_seconds() - c0;
  rate.file              = scenario.file;
  rate.clients           = scenario.pgbench.clients;
  rate.simulated_seconds = scenario.run.warmup + scenario.run.duration;
  rate.wall_seconds      = result.wall_seconds;
  rate.transactions      = result.all_transactions;
  rate.transactions_per_second =
      result.wall_seconds > 0 ? static_cast<double>(rate.transactions) / rate.wall_seconds : 0;
  rate.peak_rss_kb = result.peak_rss_kb;
  rate.skips       = sim::lookahead::skip_counts();
  return rate;
}

nlohmann::ordered_json to_json(const ScenarioRate& r)
{
  return {{"file", r.file},
          {"clients", r.clients},
          {"simulated_seconds", r.simulated_seconds},
          {"wall_seconds", r.wall_seconds},
          {"transactions", r.transactions},
          {"transactions_per_wall_second", r.transactions_per_second},
          {"cpu_seconds", r.cpu_seconds},
          {"peak_rss_kb", r.peak_rss_kb},
          {"cpu_chunks", r.skips.asked},
          {"cpu_chunks_without_engine_sleep", r.skips.skipped}};
}

// --- output -----------------------------------------------------------------------------------

void row(const char* group, const char* what, const std::string& value)
{
  std::printf("  %-9s %-36s %16s\n", group, what, value.c_str());
}

std::string number(const char* format, double v)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void print_table(const ScenarioRate& s, const EngineRate& e, double ratio)
{
  std::printf("walsim-bench: walsim %s, SimGrid %s\n", pg::walsim_version().c_str(), pg::simgrid_version().c_str());
  row("scenario", "file", std::filesystem::path(s.file).filename().string());
  row("", "clients", std::to_string(s.clients));
  row("", "simulated seconds (warm-up included)", number("%.3f", s.simulated_seconds));
  row("", "wall seconds", number("%.3f", s.wall_seconds));
  row("", "transactions simulated", std::to_string(s.transactions));
  row("", "transactions per wall second", number("%.0f", s.transactions_per_second));
  row("", "CPU seconds (table setup included)", number("%.3f", s.cpu_seconds));
  row("", "transactions per CPU second", number("%.0f", s.cpu_seconds > 0 ? s.transactions / s.cpu_seconds : 0));
  row("", "peak RSS (MB)", number("%.1f", static_cast<double>(s.peak_rss_kb) / 1024));
  row("", "CPU chunks simulated", std::to_string(s.skips.asked));
  row("", "of them run without an engine sleep",
      number("%.1f%%", s.skips.asked > 0 ? 100.0 * static_cast<double>(s.skips.skipped) / s.skips.asked : 0));
  row("engine", "actors (one per client)", std::to_string(e.actors));
  row("", "lock/sleep/unlock/sleep cycles", std::to_string(e.cycles));
  row("", "wall seconds", number("%.3f", e.wall_seconds));
  row("", "cycles per wall second", number("%.0f", e.cycles_per_second));
  row("", "simcalls per wall second", number("%.0f", e.simcalls_per_second));
  row("", "CPU seconds", number("%.3f", e.cpu_seconds));
  row("", "cycles per CPU second", number("%.0f", e.cpu_seconds > 0 ? e.cycles / e.cpu_seconds : 0));
  row("", "peak RSS (MB)", number("%.1f", static_cast<double>(e.peak_rss_kb) / 1024));
  row("ratio", "transactions / engine cycles", number("%.4f", ratio));
  std::printf("  (one simulated transaction costs as much wall time as %.1f bare engine cycles)\n",
              ratio > 0 ? 1 / ratio : 0);
}

void write_json(const std::string& path, const nlohmann::ordered_json& j)
{
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::string default_scenario()
{
  for (const char* candidate : kDefaultScenarios)
    if (std::filesystem::is_regular_file(candidate)) return candidate;
  throw std::runtime_error("no scenario given and none of the default ones found from the current directory "
                           "(run from the repository's root, or name a scenario)");
}

int engine_only(const po::variables_map& vm)
{
  const EngineRate rate = measure_engine(vm["actors"].as<int>(), vm["engine-cycles"].as<std::uint64_t>());
  std::cout << to_json(rate).dump() << "\n";
  return cli::kOk;
}

int bench(const po::variables_map& vm, cli::ScenarioArgs& scenario_args)
{
  pg::Scenario scenario;
  try {
    scenario_args.file = vm.count("scenario") ? vm["scenario"].as<std::string>() : default_scenario();
    scenario_args.collect(vm);
    scenario = scenario_args.load();
    if (vm.count("json")) {
      const auto dir = std::filesystem::absolute(vm["json"].as<std::string>()).parent_path();
      if (!std::filesystem::is_directory(dir))
        throw std::runtime_error("--json: directory " + dir.string() + " does not exist");
    }
  } catch (const std::exception& e) {
    cli::print_config_error(e);
    return cli::kBadInput;
  }

  const ScenarioRate s = measure_scenario(scenario);
  const EngineRate e   = engine_from_json(
        nlohmann::json::parse(run_self({"--engine-only", "--actors", std::to_string(s.clients), "--engine-cycles",
                                        std::to_string(vm["engine-cycles"].as<std::uint64_t>())})));
  const double ratio = e.cycles_per_second > 0 ? s.transactions_per_second / e.cycles_per_second : 0;
  print_table(s, e, ratio);
  if (vm.count("json")) {
    nlohmann::ordered_json j = {{"walsim", pg::walsim_version()},
                                {"simgrid", pg::simgrid_version()},
                                {"host_cpus", static_cast<long>(sysconf(_SC_NPROCESSORS_ONLN))},
                                {"scenario", to_json(s)},
                                {"engine", to_json(e)},
                                {"transactions_per_engine_cycle", ratio}};
    write_json(vm["json"].as<std::string>(), j);
  }
  return cli::kOk;
}

} // namespace

int main(int argc, char** argv)
{
  cli::ScenarioArgs scenario_args;
  po::options_description desc("options");
  scenario_args.add_options(desc);
  desc.add_options()("help,h", "this help")("json", po::value<std::string>(),
                                            "also write the measurements as JSON to this file")(
      "engine-cycles", po::value<std::uint64_t>()->default_value(400000),
      "lock cycles the engine measurement runs, over all actors");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>())("engine-only", "")("actors", po::value<int>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "walsim-bench: " << e.what() << "\n" << kUsage;
    return cli::kBadInput;
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << desc;
    return cli::kOk;
  }
  try {
    if (vm.count("engine-only")) {
      if (!vm.count("actors") || vm["actors"].as<int>() < 1) {
        std::cerr << "walsim-bench: --engine-only needs --actors N (N >= 1)\n";
        return cli::kBadInput;
      }
      return engine_only(vm);
    }
    return bench(vm, scenario_args);
  } catch (const std::exception& e) {
    std::cerr << "walsim-bench: " << e.what() << "\n";
    return cli::kInternalError;
  }
}
