/* walsim sweep: a scenario over the cross product of varied keys, with replications. */
#include "models/cli/cli.hpp"
#include "models/cli/sweep_args.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace cli {

namespace {

const char* kSweepUsage =
    "usage: walsim sweep SCENARIO.json --vary KEY=V1,V2,... [--vary KEY2=...] [--repeat N] [--jobs N] --out DIR\n"
    "\n"
    "Runs the scenario at every combination of the varied keys, N replications each, on worker\n"
    "processes, and writes DIR/results.csv (one row per run), DIR/summary.csv (per point: median,\n"
    "mean and 95% confidence interval of the mean), DIR/manifest.json and each run's JSON and log\n"
    "under DIR/runs/. Replication r uses seed base+r at every point, so variants are compared on\n"
    "common random numbers. Running the same command again resumes: finished runs are kept.\n"
    "\n"
    "Ranges: 1..128:x2 is 1,2,4,...,128; 10..50:+10 is 10,20,...,50; 100ms..300ms:+100ms works too.\n"
    "Elsewhere: --emit-jobs FILE (one command per line, for GNU parallel) and --slurm FILE (a job\n"
    "array) write the missing runs' commands instead of running them; run the sweep command again\n"
    "afterwards to collect the tables. --shard K/N runs every N-th run only; walsim merge joins\n"
    "the folders.\n"
    "\n"
    "Exit status: 0 all runs done, 1 a run failed (the others are done), 2 bad input,\n"
    "128+signal when interrupted (finished runs are kept).\n";

} // namespace

int sweep_command(const std::vector<std::string>& args)
{
  const std::string who = "walsim sweep";
  po::options_description desc("sweep options");
  add_sweep_options(desc, 1);
  desc.add_options()("emit-jobs", po::value<std::string>(),
                     "write the missing runs' commands to FILE, one per line, instead of running them")(
      "slurm", po::value<std::string>(), "write a Slurm job-array script running the missing runs to FILE")(
      "shard", po::value<std::string>(), "K/N: run only the runs whose index is K modulo N");
  po::variables_map vm;
  if (!parse_sweep_args(who, args, desc, vm)) return kBadInput;
  if (vm.count("help")) {
    std::cout << kSweepUsage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("scenario")) {
    std::cerr << who << ": no scenario file given\n" << kSweepUsage;
    return kBadInput;
  }
  SweepRequest req;
  try {
    req = sweep_request(who, vm);
    if (vm.count("shard")) req.shard = parse_shard(vm["shard"].as<std::string>());
  } catch (const PlanError& e) {
    std::cerr << who << ": " << e.what() << "\n";
    return kBadInput;
  }
  if (vm.count("emit-jobs")) req.emit_jobs = vm["emit-jobs"].as<std::string>();
  if (vm.count("slurm")) req.slurm = vm["slurm"].as<std::string>();
  req.command_line = command_line("walsim sweep", args);
  return run_sweep(req).status;
}

} // namespace cli
