/* Options of sweep and compare. */
#include "models/cli/sweep_args.hpp"

#include "models/cli/scenario_args.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace cli {

void add_sweep_options(po::options_description& desc, int default_repeat)
{
  desc.add_options()("vary", po::value<std::vector<std::string>>()->composing(),
                     "KEY=V1,V2,... or a range A..B:xF (geometric) or A..B:+S (arithmetic); repeatable, "
                     "the runs are the cross product")(
      "repeat,r", po::value<int>()->default_value(default_repeat),
      "replications per point; replication r uses seed base+r at every point")(
      "jobs", po::value<int>(), "worker processes (default: one per processor)")(
      "out,o", po::value<std::string>(), "the sweep's folder (created, or resumed when it holds this sweep)")(
      "quiet,q", "no progress bar or messages, only errors")("set", po::value<std::vector<std::string>>()->composing(),
                                                             "override a scenario key for every run: KEY=VALUE")(
      "seed", po::value<std::uint64_t>(), "base seed (default: the scenario's run.seed)")(
      "clients,c", po::value<int>(), "pgbench -c for every run (pgbench.clients)")(
      "time,T", po::value<std::string>(), "pgbench -T for every run, e.g. 10s (pgbench.time)")(
      "protocol,M", po::value<std::string>(), "pgbench -M (pgbench.protocol)")("builtin,b", po::value<std::string>(),
                                                                               "pgbench -b (pgbench.builtin)")(
      "scale", po::value<int>(), "pgbench -s (pgbench.scale)")("help,h", "this help");
}

bool parse_sweep_args(const std::string& who, const std::vector<std::string>& args, const po::options_description& desc,
                      po::variables_map& vm)
{
  try {
    store_scenario_command(args, desc, vm);
  } catch (const po::error& e) {
    std::cerr << who << ": " << e.what() << "\nRun \"" << who << " --help\" for the options.\n";
    return false;
  }
  return true;
}

SweepRequest sweep_request(const std::string& who, const po::variables_map& vm)
{
  SweepRequest req;
  req.who           = who;
  req.scenario.file = vm["scenario"].as<std::string>();
  auto& sets        = req.scenario.sets;
  // The same order as walsim run's, so that equal options compose equal scenarios.
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("clients")) sets.push_back("pgbench.clients=" + std::to_string(vm["clients"].as<int>()));
  if (vm.count("time")) sets.push_back("pgbench.time=" + vm["time"].as<std::string>());
  if (vm.count("protocol")) sets.push_back("pgbench.protocol=" + vm["protocol"].as<std::string>());
  if (vm.count("builtin")) sets.push_back("pgbench.builtin=" + vm["builtin"].as<std::string>());
  if (vm.count("scale")) sets.push_back("pgbench.scale=" + std::to_string(vm["scale"].as<int>()));
  if (vm.count("seed")) sets.push_back("run.seed=" + std::to_string(vm["seed"].as<std::uint64_t>()));
  if (vm.count("vary"))
    for (const auto& v : vm["vary"].as<std::vector<std::string>>()) req.axes.push_back(parse_vary(v));
  req.repeat = vm["repeat"].as<int>();
  if (vm.count("jobs")) {
    req.jobs = vm["jobs"].as<int>();
    if (req.jobs < 1) throw PlanError("--jobs must be at least 1");
  }
  if (vm.count("out")) req.out = vm["out"].as<std::string>();
  req.quiet = vm.count("quiet") > 0;
  return req;
}

} // namespace cli
