/* Sweep folders: manifests, run files and tables. */
#include "models/cli/result_store.hpp"

#include "models/cli/cli.hpp"
#include "models/version.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cli {

namespace {

// The JSON pointer of the first difference between a and b, with both values, for messages.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b)
{
  const auto patch = nlohmann::json::diff(a, b);
  if (patch.empty()) return "";
  const std::string path = patch.front().at("path").get<std::string>();
  const nlohmann::json::json_pointer p(path);
  const std::string was = a.contains(p) ? a.at(p).dump() : "absent";
  const std::string now = b.contains(p) ? b.at(p).dump() : "absent";
  return (path.empty() ? "/" : path) + " is " + was + " there, " + now + " here";
}

} // namespace

std::string read_text_file(const std::string& file)
{
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<RunRecord> load_run(const std::string& file, std::uint64_t seed, const std::string& walsim)
{
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  try {
    // walsim run writes its JSON atomically, so a file that parses is whole; the seed tells it
    // is this run's (and not, say, a file copied from another replication).
    const auto j = nlohmann::json::parse(read_text_file(file));
    if (j.value("/simulator/seed"_json_pointer, nlohmann::json()) != nlohmann::json(seed)) return std::nullopt;
    if (j.value("/simulator/walsim"_json_pointer, nlohmann::json()) != nlohmann::json(walsim)) return std::nullopt;
    return read_run_record(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string run_file_walsim(const std::string& file)
{
  try {
    const auto j = nlohmann::json::parse(read_text_file(file));
    return j.value("/simulator/walsim"_json_pointer, std::string());
  } catch (const std::exception&) {
    return "";
  }
}

Records SweepDir::load_records(const Plan& plan, const std::string& walsim, std::vector<std::size_t>* stale) const
{
  Records records;
  std::error_code ec;
  for (std::size_t i = 0; i < plan.runs().size(); ++i) {
    const auto& run        = plan.runs()[i];
    const std::string file = run_json(run);
    if (auto r = load_run(file, run.seed, walsim))
      records.emplace(i, std::move(*r));
    else if (stale && std::filesystem::exists(file, ec))
      stale->push_back(i);
  }
  return records;
}

void SweepDir::write_tables(const Plan& plan, const Records& records) const
{
  write_file_atomically(path_ + "/results.csv", results_csv(plan, records));
  write_file_atomically(path_ + "/summary.csv", summary_csv(plan, records));
}

nlohmann::ordered_json make_manifest(const std::string& scenario_file, const nlohmann::json& document,
                                     const nlohmann::json& resolved, const Plan& plan, const std::string& command_line)
{
  nlohmann::ordered_json m;
  m["walsim"]       = pg::walsim_version();
  m["simgrid"]      = pg::simgrid_version();
  m["command_line"] = command_line;
  m["seeds"]        = "replication r runs with seed base_seed + r at every point (common random numbers across points)";
  m["plan"]         = plan.to_json();
  m["scenario"]     = {{"file", scenario_file}, {"document", document}, {"resolved", resolved}};
  return m;
}

std::optional<nlohmann::json> read_manifest(const std::string& file)
{
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(file));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file + ": not a sweep manifest: " + e.what());
  }
  for (const char* key : {"/walsim", "/plan", "/scenario/document"})
    if (!j.contains(nlohmann::json::json_pointer(key)))
      throw std::runtime_error(file + ": not a sweep manifest: no " + key);
  return j;
}

std::string manifest_mismatch(const nlohmann::json& existing, const nlohmann::json& wanted)
{
  if (existing.at("walsim") != wanted.at("walsim"))
    return "it was made by walsim " + existing.at("walsim").dump() + ", this is walsim " + wanted.at("walsim").dump();
  const auto plan = first_difference(existing.at("plan"), wanted.at("plan"));
  if (!plan.empty()) return "the plan differs: " + plan;
  const auto doc =
      first_difference(existing.at("/scenario/document"_json_pointer), wanted.at("/scenario/document"_json_pointer));
  if (!doc.empty()) return "the scenario differs: " + doc;
  return "";
}

bool adds_replications(const nlohmann::json& existing, const nlohmann::json& wanted)
{
  auto without_repeat = [](nlohmann::json m) {
    for (const char* key : {"repeat", "seeds", "runs"}) m["plan"].erase(key);
    return m;
  };
  return existing.at("/plan/repeat"_json_pointer).get<int>() < wanted.at("/plan/repeat"_json_pointer).get<int>() &&
         manifest_mismatch(without_repeat(existing), without_repeat(wanted)).empty();
}

} // namespace cli
