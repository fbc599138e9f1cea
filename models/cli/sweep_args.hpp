/* Command-line options shared by walsim sweep and walsim compare. --jobs is the number of worker
 * processes here, so pgbench's -j (threads) is only available as --set pgbench.jobs=N. */
#pragma once

#include "models/cli/sweep_runner.hpp"

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace cli {

/// --vary, --repeat, --jobs, --out, --quiet and the scenario overrides (--set, --seed, -c, -T,
/// -M, -b, --scale, spelt as in walsim run).
void add_sweep_options(boost::program_options::options_description& desc, int default_repeat);

/// Parses args with desc plus the positional SCENARIO. Returns false after printing the error.
bool parse_sweep_args(const std::string& who, const std::vector<std::string>& args,
                      const boost::program_options::options_description& desc,
                      boost::program_options::variables_map& vm);

/// Fills the request from parsed options. Throws PlanError on a bad --vary, --jobs or --shard.
SweepRequest sweep_request(const std::string& who, const boost::program_options::variables_map& vm);

} // namespace cli
