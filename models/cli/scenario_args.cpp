/* Loading a scenario from the command line. */
#include "models/cli/scenario_args.hpp"

#include "models/cli/cli.hpp"

#include <iostream>
#include <map>
#include <stdexcept>

namespace po = boost::program_options;

namespace cli {

void ScenarioArgs::add_options(po::options_description& desc)
{
  desc.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                     "override a scenario key: KEY.PATH=VALUE, e.g. settings.NUM_XLOGINSERT_LOCKS=16 (repeatable)")(
      "seed", po::value<std::uint64_t>(), "random seed (run.seed)")("clients,c", po::value<int>(),
                                                                    "pgbench -c: number of clients (pgbench.clients)")(
      "jobs,j", po::value<int>(), "pgbench -j: number of threads (pgbench.jobs)")(
      "time,T", po::value<std::string>(), "pgbench -T: measured duration, e.g. 30s (pgbench.time)")(
      "protocol,M", po::value<std::string>(), "pgbench -M: simple, extended or prepared (pgbench.protocol)")(
      "builtin,b", po::value<std::string>(),
      "pgbench -b: tpcb-like, simple-update, select-only, tpcb-func, insert-only")(
      "scale", po::value<int>(), "pgbench -s: scale factor (pgbench.scale)");
}

void ScenarioArgs::collect(const po::variables_map& vm)
{
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("clients")) sets.push_back("pgbench.clients=" + std::to_string(vm["clients"].as<int>()));
  if (vm.count("jobs")) sets.push_back("pgbench.jobs=" + std::to_string(vm["jobs"].as<int>()));
  if (vm.count("time")) sets.push_back("pgbench.time=" + vm["time"].as<std::string>());
  if (vm.count("protocol")) sets.push_back("pgbench.protocol=" + vm["protocol"].as<std::string>());
  if (vm.count("builtin")) sets.push_back("pgbench.builtin=" + vm["builtin"].as<std::string>());
  if (vm.count("scale")) sets.push_back("pgbench.scale=" + std::to_string(vm["scale"].as<int>()));
  if (vm.count("seed")) sets.push_back("run.seed=" + std::to_string(vm["seed"].as<std::uint64_t>()));
}

namespace {

// Two values for one key (-c 1 and --set pgbench.clients=16) would leave the user guessing
// which one ran.
void check_no_key_twice(const std::vector<std::string>& sets)
{
  std::map<std::string, std::string> given;
  for (const auto& s : sets) {
    const std::string key  = s.substr(0, s.find('='));
    const auto [it, fresh] = given.emplace(key, s);
    if (!fresh && it->second != s)
      throw std::invalid_argument(key + " is given twice on the command line, as " + it->second + " and as " + s +
                                  " (an option such as -c also sets it): give it once");
  }
}

} // namespace

sim::config::Document ScenarioArgs::document() const
{
  check_no_key_twice(sets);
  sim::config::Document doc = sim::config::Document::load(file);
  for (const auto& s : sets) doc.set(s);
  return doc;
}

pg::Scenario ScenarioArgs::load() const
{
  return pg::read_scenario(document());
}

void store_scenario_command(const std::vector<std::string>& argv, const po::options_description& desc,
                            po::variables_map& vm)
{
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::store(po::command_line_parser(argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
}

std::optional<int> parse_scenario_command(const std::string& command, const std::string& usage,
                                          po::options_description& desc, const std::vector<std::string>& argv,
                                          ScenarioArgs& args, po::variables_map& vm)
{
  try {
    store_scenario_command(argv, desc, vm);
  } catch (const po::error& e) {
    std::cerr << "walsim " << command << ": " << e.what() << "\n"
              << usage << "Run \"walsim " << command << " --help\" for the options.\n";
    return kBadInput;
  }
  if (vm.count("help")) {
    std::cout << usage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("scenario")) {
    std::cerr << "walsim " << command << ": no scenario file given\n" << usage;
    return kBadInput;
  }
  args.file = vm["scenario"].as<std::string>();
  args.collect(vm);
  return std::nullopt;
}

void print_config_error(const std::exception& e)
{
  if (const auto* ce = dynamic_cast<const sim::config::Error*>(&e)) {
    for (const auto& p : ce->problems()) std::cerr << "walsim: " << p.to_string() << "\n";
    return;
  }
  std::cerr << "walsim: " << e.what() << "\n";
}

} // namespace cli
