/* walsim: the command-line front end. It only parses arguments and wires a scenario to the
 * models; see README.md. */
#include "models/cli/cli.hpp"
#include "models/version.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace {

const char* kUsage = R"(walsim: a discrete-event simulator of PostgreSQL's commit path under concurrency

usage: walsim <command> [options]

commands:
  run SCENARIO        simulate a scenario and print a pgbench-style summary
  validate SCENARIO   check a scenario (and --set overrides) without running it
  sweep SCENARIO      run the cross product of --vary values, replicated, on worker processes
  compare SCENARIO    compare variants of a key: medians, ratio, difference of means, Welch's p
  plot DIR            chart a sweep's metric against a varied key (PNG and SVG via gnuplot)
  merge DIR...        merge partial folders of one sweep (shards, machines) into one
  reproduce           run scripts/reproduce: the report comparing simulated and published figures

Run "walsim <command> --help" for a command's options.

options:
  -h, --help          this help
  -V, --version       walsim and SimGrid versions

Exit status: 0 success, 1 a run failed, 2 bad input (usage or scenario), 3 internal error.
)";

} // namespace

int main(int argc, char** argv)
{
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return cli::kBadInput;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kUsage;
    return cli::kOk;
  }
  if (command == "-V" || command == "--version") {
    std::cout << "walsim " << pg::walsim_version() << "\nSimGrid " << pg::simgrid_version() << "\n";
    return cli::kOk;
  }
  if (command == "run") return cli::run_command(rest);
  if (command == "validate") return cli::validate_command(rest);
  if (command == "sweep") return cli::sweep_command(rest);
  if (command == "compare") return cli::compare_command(rest);
  if (command == "plot") return cli::plot_command(rest);
  if (command == "merge") return cli::merge_command(rest);
  if (command == "reproduce") return cli::reproduce_command(rest);
  std::cerr << "walsim: unknown command \"" << command << "\"\n\n" << kUsage;
  return cli::kBadInput;
}
