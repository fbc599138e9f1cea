/* walsim validate: check a scenario without running it. */
#include "models/cli/cli.hpp"
#include "models/cli/scenario_args.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace po = boost::program_options;

namespace cli {

int validate_command(const std::vector<std::string>& args)
{
  const char* usage = "usage: walsim validate SCENARIO.json [options]\n\n"
                      "Checks the scenario, the files it extends and the overrides, reporting every problem\n"
                      "as FILE: /json/pointer: what was expected. Exit status 0 when valid, 2 otherwise.\n";
  ScenarioArgs scenario_args;
  po::options_description desc("validate options");
  scenario_args.add_options(desc);
  desc.add_options()("help,h", "this help")("resolved", "print the effective scenario, every default filled in");
  po::variables_map vm;
  if (const auto done = parse_scenario_command("validate", usage, desc, args, scenario_args, vm)) return *done;
  try {
    const pg::Scenario s = scenario_args.load();
    if (vm.count("resolved"))
      std::cout << s.resolved.dump(2) << "\n";
    else
      std::cout << scenario_args.file << ": valid\n";
  } catch (const std::exception& e) {
    print_config_error(e);
    return kBadInput;
  }
  return kOk;
}

} // namespace cli
