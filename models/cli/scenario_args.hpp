/* Options shared by the commands that take a scenario: --set overrides, --seed and the pgbench
 * shortcuts (-c, -j, -T, -M, -b, --scale), which are spelt as pgbench spells them. */
#pragma once

#include "models/scenario.hpp"

#include <boost/program_options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace cli {

struct ScenarioArgs {
  std::string file;
  std::vector<std::string> sets;
  void add_options(boost::program_options::options_description& desc);
  /// Turns the pgbench shortcuts and --seed into --set assignments, in a fixed order.
  void collect(const boost::program_options::variables_map& vm);
  /// Loads, composes and validates. Throws sim::config::Error.
  pg::Scenario load() const;
  sim::config::Document document() const;
};

/// Stores argv in vm: desc's options and one positional SCENARIO.json, as "scenario". Throws
/// boost::program_options::error.
void store_scenario_command(const std::vector<std::string>& argv,
                            const boost::program_options::options_description& desc,
                            boost::program_options::variables_map& vm);

/// Parses the arguments of a command that takes one SCENARIO.json and the options in desc (the
/// scenario options among them), into vm, args.file and args.sets. Returns the exit status
/// when the command is done already: --help printed (0), or a usage error reported (2).
std::optional<int> parse_scenario_command(const std::string& command, const std::string& usage,
                                          boost::program_options::options_description& desc,
                                          const std::vector<std::string>& argv, ScenarioArgs& args,
                                          boost::program_options::variables_map& vm);

/// Prints a scenario error as "walsim: FILE: /pointer: message" lines.
void print_config_error(const std::exception& e);

} // namespace cli
