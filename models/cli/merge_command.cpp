/* walsim merge: joins partial folders of one sweep (shards, machines, interrupted runs). */
#include "models/cli/cli.hpp"
#include "models/cli/result_store.hpp"

#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace cli {

namespace {

const char* kMergeUsage = "usage: walsim merge DIR... --out DIR\n"
                          "\n"
                          "Merges folders of the same sweep (the same scenario, plan and walsim version, as their\n"
                          "manifest.json say) into one, copying each finished run once, and writes results.csv and\n"
                          "summary.csv there. The output may be one of the inputs.\n";

struct Input {
  SweepDir dir;
  nlohmann::json manifest;
};

/// Reads and cross-checks the inputs' manifests; prints why and returns false when they disagree.
bool read_inputs(const std::vector<std::string>& paths, std::vector<Input>& inputs)
{
  for (const auto& p : paths) {
    SweepDir dir(fs::absolute(p).lexically_normal().string());
    std::optional<nlohmann::json> m;
    try {
      m = read_manifest(dir.manifest());
    } catch (const std::exception& e) {
      std::cerr << "walsim merge: " << e.what() << "\n";
      return false;
    }
    if (!m) {
      std::cerr << "walsim merge: " << p << " is not a sweep folder (no manifest.json)\n";
      return false;
    }
    if (!inputs.empty())
      if (const auto why = manifest_mismatch(inputs.front().manifest, *m); !why.empty()) {
        std::cerr << "walsim merge: " << p << " is not the same sweep as " << inputs.front().dir.path() << ": " << why
                  << "\n";
        return false;
      }
    inputs.push_back({dir, *m});
  }
  return true;
}

bool prepare_output(const SweepDir& out, const nlohmann::json& manifest)
{
  std::error_code ec;
  try {
    const auto existing = read_manifest(out.manifest());
    if (existing) {
      if (const auto why = manifest_mismatch(*existing, manifest); !why.empty()) {
        std::cerr << "walsim merge: --out " << out.path() << " holds a different sweep: " << why << "\n";
        return false;
      }
    } else if (fs::exists(out.path(), ec) && (!fs::is_directory(out.path(), ec) || !fs::is_empty(out.path(), ec))) {
      std::cerr << "walsim merge: --out " << out.path() << " exists and is not an empty folder or a sweep folder\n";
      return false;
    }
    fs::create_directories(out.runs_dir());
    if (!existing) {
      write_file_atomically(out.scenario(), manifest.at("/scenario/document"_json_pointer).dump(2) + "\n");
      write_file_atomically(out.manifest(), manifest.dump(2) + "\n");
    }
  } catch (const std::exception& e) {
    std::cerr << "walsim merge: --out " << out.path() << ": " << e.what() << "\n";
    return false;
  }
  return true;
}

void copy_file_atomically(const std::string& from, const std::string& to)
{
  std::error_code ec;
  if (fs::equivalent(from, to, ec)) return; // merging a folder into itself
  write_file_atomically(to, read_text_file(from));
}

/// Copies every run finished in some input into out; returns the runs now there.
Records gather_runs(const std::vector<Input>& inputs, const SweepDir& out, const Plan& plan)
{
  const auto walsim = inputs.front().manifest.at("walsim").get<std::string>();
  Records records   = out.load_records(plan, walsim);
  std::error_code ec;
  for (std::size_t i = 0; i < plan.runs().size(); ++i) {
    if (records.count(i)) continue;
    const auto& run = plan.runs()[i];
    for (const auto& in : inputs) {
      auto r = load_run(in.dir.run_json(run), run.seed, walsim);
      if (!r) continue;
      if (fs::exists(in.dir.run_log(run), ec)) copy_file_atomically(in.dir.run_log(run), out.run_log(run));
      copy_file_atomically(in.dir.run_json(run), out.run_json(run));
      records.emplace(i, std::move(*r));
      break;
    }
  }
  return records;
}

} // namespace

int merge_command(const std::vector<std::string>& args)
{
  po::options_description desc("merge options");
  desc.add_options()("out,o", po::value<std::string>(), "the merged folder")("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "walsim merge: " << e.what() << "\n" << kMergeUsage;
    return kBadInput;
  }
  if (vm.count("help")) {
    std::cout << kMergeUsage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("input") || !vm.count("out")) {
    std::cerr << "walsim merge: give the folders to merge and --out DIR\n" << kMergeUsage;
    return kBadInput;
  }
  std::vector<Input> inputs;
  if (!read_inputs(vm["input"].as<std::vector<std::string>>(), inputs)) return kBadInput;
  std::optional<Plan> plan;
  try {
    plan.emplace(Plan::from_json(inputs.front().manifest.at("plan")));
  } catch (const std::exception& e) {
    std::cerr << "walsim merge: " << inputs.front().dir.manifest() << ": " << e.what() << "\n";
    return kBadInput;
  }
  const SweepDir out(fs::absolute(vm["out"].as<std::string>()).lexically_normal().string());
  if (!prepare_output(out, inputs.front().manifest)) return kBadInput;
  try {
    const Records records = gather_runs(inputs, out, *plan);
    out.write_tables(*plan, records);
    std::cerr << "walsim merge: " << records.size() << " of " << plan->runs().size() << " runs from " << inputs.size()
              << " folders in " << out.path() << "\n";
    if (records.size() < plan->runs().size())
      std::cerr << "walsim merge: warning: " << plan->runs().size() - records.size()
                << " runs are missing; their points have fewer replications in summary.csv\n";
  } catch (const std::exception& e) {
    std::cerr << "walsim merge: " << e.what() << "\n";
    return kFailed;
  }
  return kOk;
}

} // namespace cli
