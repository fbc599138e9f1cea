/* Options shared by the commands that take a scenario: --set overrides, --seed and the pgbench
 * shortcuts (-c, -j, -T, -M, -b, --scale), which are spelt as pgbench spells them. */
#pragma once

#include "models/scenario.hpp"

#include <boost/program_options.hpp>

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

/// Prints a scenario error as "walsim: FILE: /pointer: message" lines.
void print_config_error(const std::exception& e);

} // namespace cli
