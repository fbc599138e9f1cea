/* walsim run for the sequential-scan workload (run.workload = "seqscan"). */
#pragma once

#include "models/scenario.hpp"

#include <string>
#include <vector>

namespace cli {

/// Simulates the scan series, prints one line per pass, and writes the JSON when json_path is
/// set (with the host's wall time and memory unless reproducible). Returns the exit status.
int run_scan_command(const pg::Scenario& scenario, const std::vector<std::string>& simgrid_args,
                     const std::string& json_path, bool reproducible, bool quiet);

} // namespace cli
