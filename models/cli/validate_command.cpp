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
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "walsim validate: " << e.what() << "\n" << usage;
    return kBadInput;
  }
  if (vm.count("help")) {
    std::cout << usage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("scenario")) {
    std::cerr << "walsim validate: no scenario file given\n" << usage;
    return kBadInput;
  }
  scenario_args.file = vm["scenario"].as<std::string>();
  scenario_args.collect(vm);
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
