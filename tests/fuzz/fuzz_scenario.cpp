/* libFuzzer target for the scenario loader, the --set parser and the scenario reader.
 *
 * Whatever the bytes, loading, validating and overriding a scenario must either work or throw
 * sim::config::Error: any other exception, crash or sanitizer report is a bug in sim/config.cpp,
 * sim/units.cpp or the models' scenario readers. Each input is used four ways:
 *  - as a document read by a generic reader whose accessors cover every kind of value, at the
 *    top level, in nested objects and in arrays of objects;
 *  - as a document read by pg::read_scenario, the reader walsim run uses, with "extends"
 *    resolved in the shipped scenarios/ directory so that the seed corpus (every shipped
 *    scenario, added by .ci/run) composes into complete scenarios;
 *  - as a --set assignment over a small document, read by the generic reader;
 *  - as a --set assignment over a shipped scenario, read by pg::read_scenario.
 */
#include "models/scenario.hpp"
#include "sim/config.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace {

namespace config = sim::config;

/// "extends" in the generic cases must not find real files next to the fuzzer.
constexpr const char* kNoSuchDir = "/nonexistent-walsim-fuzz-dir";
#ifdef WALSIM_SOURCE_DIR
const std::string kScenarioDir = WALSIM_SOURCE_DIR "/scenarios";
#else
const std::string kScenarioDir = kNoSuchDir;
#endif

void read_generic(const config::Document& doc)
{
  config::Reader reader(doc);
  config::Object root = reader.root();
  root.has("pgbench");
  root.string("name", std::string("fuzz"));
  root.integer("seed", 1, 0, 1000000);

  config::Object pgbench = root.object("pgbench");
  pgbench.integer("clients", 1, 1, 100000);
  pgbench.integer("transactions", std::nullopt, 1, 1000000000);
  pgbench.number("scale", 1.0, 0.0, 1e6);
  pgbench.choice("mode", "simple", {"simple", "extended", "prepared"});
  pgbench.numbers("weights", std::vector<double>{1.0}, 0.0, 1.0);
  pgbench.boolean("vacuum", false);
  pgbench.duration("duration", std::nullopt, 1e-3, 1e6);

  config::Object wal = root.object("wal");
  wal.size("wal_buffers", "16MB", 64 * 1024, 1e12);
  wal.duration("wal_writer_delay", "200ms", 1e-3, 10);
  wal.size("wal_writer_flush_after", "1MB", 0, 1e9);
  wal.boolean("synchronous_commit", true);
  wal.object("wal").integer("depth", 0, 0, 10);

  config::Object hardware = root.object("hardware");
  hardware.frequency("clock", "3GHz", 1e6, 1e10);
  hardware.integer("cores", std::nullopt, 1, 1024);
  for (config::Object& disk : hardware.objects("disks")) {
    disk.bandwidth("bandwidth", "2GB/s", 1, 1e12);
    disk.duration("latency", std::nullopt, 0, 1);
    disk.string("model", std::nullopt);
    if (disk.has("queue_depth")) disk.integer("queue_depth", 32, 1, 65536);
  }
  if (!reader.ok()) hardware.fail("cores", "inconsistent");
  reader.fail("/wal", "checked");

  doc.origin("/hardware/disks/0/latency");
  try {
    reader.finish();
  } catch (const config::Error& error) {
    for (const config::Problem& problem : error.problems()) problem.to_string();
  }
  reader.resolved().dump();
}

/// What walsim run does with a document: a scenario, or the problems that make it unusable.
void read_real(const config::Document& doc)
{
  try {
    const pg::Scenario scenario = pg::read_scenario(doc);
    scenario.resolved.dump();
  } catch (const config::Error& error) {
    for (const config::Problem& problem : error.problems()) problem.to_string();
  }
}

void fuzz_document(const std::string& text)
{
  try {
    read_generic(config::Document::parse(text, "fuzz.json", kNoSuchDir));
  } catch (const config::Error&) {
  }
  try {
    read_real(config::Document::parse(text, kScenarioDir + "/fuzz.json", kScenarioDir));
  } catch (const config::Error&) {
  }
}

/// The shipped scenario that --set assignments apply to, loaded once; nullopt if it cannot be.
const std::optional<config::Document>& shipped_scenario()
{
  static const std::optional<config::Document> doc = []() -> std::optional<config::Document> {
    try {
      return config::Document::load(kScenarioDir + "/local-pg15-tpcb.json");
    } catch (const config::Error&) {
      return std::nullopt;
    }
  }();
  return doc;
}

void fuzz_assignment(const std::string& assignment)
{
  try {
    config::Document doc = config::Document::parse(
        R"({"pgbench": {"clients": 8, "weights": [0.5, 0.5]}, "hardware": {"disks": [{"latency": "20us"}]}})",
        "base.json", kNoSuchDir);
    doc.set(assignment);
    read_generic(doc);
  } catch (const config::Error&) {
  }
  if (!shipped_scenario()) return;
  try {
    config::Document doc = *shipped_scenario();
    doc.set(assignment);
    read_real(doc);
  } catch (const config::Error&) {
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string input(reinterpret_cast<const char*>(data), size);
  fuzz_document(input);
  fuzz_assignment(input);
  return 0;
}
