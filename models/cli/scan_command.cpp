/* walsim run for the sequential-scan workload. See scan_command.hpp. */
#include "models/cli/scan_command.hpp"

#include "models/cli/cli.hpp"
#include "models/scan_run.hpp"

#include "sim/simulation.hpp"

#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace cli {

int run_scan_command(const pg::Scenario& scenario, const std::vector<std::string>& simgrid_args,
                     const std::string& json_path, bool reproducible, bool quiet)
{
  pg::ScanRunResult result;
  if (const int status = run_simulation([&] { result = pg::run_scan_scenario(scenario, simgrid_args); }); status != kOk)
    return status;
  pg::print_scan_summary(std::cout, result);
  if (!quiet)
    std::fprintf(stderr, "walsim: simulated %zu passes in %.2f s of wall time, peak memory %ld MB\n",
                 result.passes.size(), result.wall_seconds, result.peak_rss_kb / 1024);
  if (json_path.empty()) return kOk;
  try {
    write_file_atomically(json_path, pg::to_json(result, !reproducible).dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "walsim: " << e.what() << "\n";
    return kFailed;
  }
  return kOk;
}

} // namespace cli
