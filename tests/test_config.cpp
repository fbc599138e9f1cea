/* Tests of scenario documents: composition (extends, --set), origins, and validation by use with
 * the exact messages a user sees.
 */
#include "sim/config.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace config = sim::config;
namespace fs     = std::filesystem;
using nlohmann::json;

namespace {

/// A fresh directory under the system temporary directory, removed at the end of the test.
class TempDir {
public:
  TempDir()
  {
    std::random_device entropy;
    const auto unique = std::to_string(entropy()) + "-" + std::to_string(entropy());
    path_             = fs::temp_directory_path() / ("walsim-config-test-" + unique);
    fs::create_directories(path_);
  }
  ~TempDir()
  {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&)            = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// Writes text to name (a path relative to the directory) and returns the full path.
  std::string write(const std::string& name, const std::string& text) const
  {
    const fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

private:
  fs::path path_;
};

std::vector<std::string> lines_of(const config::Error& error)
{
  std::vector<std::string> lines;
  for (const config::Problem& problem : error.problems()) lines.push_back(problem.to_string());
  return lines;
}

/// The problems Reader::finish reports after read has been applied to the root of doc.
template <typename Read>
std::vector<std::string> problems_reading(const config::Document& doc, Read read)
{
  config::Reader reader(doc);
  config::Object root = reader.root();
  read(root);
  try {
    reader.finish();
  } catch (const config::Error& error) {
    return lines_of(error);
  }
  return {};
}

/// The problems reported by something that must throw config::Error.
template <typename Action>
std::vector<std::string> problems_of(Action action)
{
  try {
    action();
  } catch (const config::Error& error) {
    return lines_of(error);
  }
  FAIL("no config::Error was thrown");
  return {};
}

config::Document parse(const std::string& text)
{
  return config::Document::parse(text, "scenarios/a.json");
}

using Lines = std::vector<std::string>;

} // namespace

TEST_CASE("config: values are read and defaults filled in", "[config]")
{
  const auto doc = parse(R"({"clients": 64, "scale": 2.5, "sync": false, "name": "x", "mode": "prepared",
                             "weights": [0.25, 1], "delay": "200ms", "buffers": "16MB", "clock": "3GHz",
                             "disk": "2GB/s", "count": 1e6})");
  config::Reader reader(doc);
  auto root = reader.root();
  CHECK(root.integer("clients", 1, 1, 100000) == 64);
  CHECK(root.integer("count", std::nullopt, 0, 1000000000) == 1000000);
  CHECK(root.integer("jobs", 4, 1, 100) == 4);
  CHECK(root.number("scale", std::nullopt, 0, 100) == 2.5);
  CHECK(root.number("fillfactor", 100, 10, 100) == 100);
  CHECK_FALSE(root.boolean("sync", true));
  CHECK(root.boolean("hibernate", true));
  CHECK(root.string("name", std::nullopt) == "x");
  CHECK(root.string("comment", std::string("none")) == "none");
  CHECK(root.choice("mode", "simple", {"simple", "extended", "prepared"}) == "prepared");
  CHECK(root.choice("protocol", "simple", {"simple", "extended"}) == "simple");
  CHECK(root.numbers("weights", std::nullopt, 0, 1) == std::vector<double>{0.25, 1});
  CHECK(root.numbers("percentiles", std::vector<double>{50, 99}, 0, 100) == std::vector<double>{50, 99});
  CHECK(root.duration("delay", std::nullopt, 0, 10) == Approx(0.2));
  CHECK(root.duration("commit_delay", "0", 0, 0.1) == 0);
  CHECK(root.size("buffers", "128kB", 0, 1e12) == 16.0 * 1024 * 1024);
  CHECK(root.size("segment", "16MB", 0, 1e12) == 16.0 * 1024 * 1024);
  CHECK(root.frequency("clock", std::nullopt, 1e6, 1e10) == 3e9);
  CHECK(root.bandwidth("disk", std::nullopt, 0, 1e12) == 2.0 * 1024 * 1024 * 1024);
  CHECK(root.has("clients"));
  CHECK_FALSE(root.has("jobs"));
  CHECK(reader.ok());
  CHECK_NOTHROW(reader.finish());
}

TEST_CASE("config: integer type and range errors", "[config]")
{
  const auto doc       = parse(R"({"pgbench": {"clients": -3, "jobs": 3.5, "scale": "3", "threads": true,
                                         "huge": 18446744073709551615}})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto pgbench = root.object("pgbench");
    CHECK(pgbench.integer("clients", 8, 1, 100000) == 8);
    CHECK(pgbench.integer("jobs", std::nullopt, 1, 100) == 1);
    pgbench.integer("scale", 1, 1, std::numeric_limits<std::int64_t>::max());
    pgbench.integer("threads", 1, std::numeric_limits<std::int64_t>::min(), 64);
    pgbench.integer("huge", 1, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /pgbench/clients: expected an integer between 1 and 100000, got -3",
                        "scenarios/a.json: /pgbench/jobs: expected an integer between 1 and 100, got 3.5",
                        "scenarios/a.json: /pgbench/scale: expected an integer of at least 1, got \"3\"",
                        "scenarios/a.json: /pgbench/threads: expected an integer of at most 64, got true",
                        "scenarios/a.json: /pgbench/huge: expected an integer, got 18446744073709551615",
                    });
}

TEST_CASE("config: number, boolean, string and choice errors", "[config]")
{
  const auto doc       = parse(R"({"ratio": 1.5, "size": "2", "sync": 1, "name": 7, "mode": "prepard",
                             "policy": 3, "low": -1})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    CHECK(root.number("ratio", 0.5, 0, 1) == 0.5);
    root.number("size", 1, 0, std::numeric_limits<double>::infinity());
    root.number("low", 1, 0, 10);
    CHECK(root.boolean("sync", true));
    root.string("name", std::string("x"));
    CHECK(root.choice("mode", "simple", {"simple", "extended", "prepared"}) == "simple");
    root.choice("policy", std::nullopt, {"2011", "2016", "2017"});
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /ratio: expected a number between 0 and 1, got 1.5",
                        "scenarios/a.json: /size: expected a number of at least 0, got \"2\"",
                        "scenarios/a.json: /low: expected a number between 0 and 10, got -1",
                        "scenarios/a.json: /sync: expected true or false, got 1",
                        "scenarios/a.json: /name: expected a string, got 7",
                        "scenarios/a.json: /mode: expected one of \"simple\", \"extended\", \"prepared\", got "
                        "\"prepard\" (did you mean \"prepared\"?)",
                        "scenarios/a.json: /policy: expected one of \"2011\", \"2016\", \"2017\", got 3",
                    });
}

TEST_CASE("config: numbers reports each bad element", "[config]")
{
  const auto doc       = parse(R"({"weights": [0.5, 2, "x"], "shares": 3})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    root.numbers("weights", std::nullopt, 0, 1);
    CHECK(root.numbers("shares", std::vector<double>{1}, 0, 1) == std::vector<double>{1});
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /weights/1: expected a number between 0 and 1, got 2",
                        "scenarios/a.json: /weights/2: expected a number between 0 and 1, got \"x\"",
                        "scenarios/a.json: /shares: expected an array of numbers between 0 and 1, got 3",
                    });
}

TEST_CASE("config: duration errors", "[config]")
{
  const auto doc       = parse(R"({"settings": {"wal_writer_delay": "200 parsecs", "commit_delay": 200,
                             "checkpoint_timeout": "0.5ms", "lock_timeout": true, "vacuum_delay": "-1ms",
                             "zero": 0, "deadlock_timeout": "2KB", "statement_timeout": "200"}})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto settings = root.object("settings");
    CHECK(settings.duration("wal_writer_delay", "200ms", 1e-3, 10) == Approx(0.2));
    settings.duration("commit_delay", "0", 0, 0.1);
    settings.duration("checkpoint_timeout", "5min", 1e-3, 10);
    settings.duration("lock_timeout", "0", 0, 1e30);
    settings.duration("vacuum_delay", "0", 0, 1);
    CHECK(settings.duration("zero", "1s", 0, 1) == 0);
    settings.duration("deadlock_timeout", "1s", 0.001, 1e30);
    settings.duration("statement_timeout", "0", 0, 1e30);
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /settings/wal_writer_delay: expected a duration with a unit, such as "
                        "\"200ms\", got \"200 parsecs\": unknown unit \"parsecs\" (units: ns, us, ms, s, min, h, d)",
                        "scenarios/a.json: /settings/commit_delay: expected a duration with a unit, such as "
                        "\"200ms\", got 200",
                        "scenarios/a.json: /settings/checkpoint_timeout: expected a duration between 1ms and 10s, "
                        "got \"0.5ms\"",
                        "scenarios/a.json: /settings/lock_timeout: expected a duration with a unit, such as "
                        "\"200ms\", got true",
                        "scenarios/a.json: /settings/vacuum_delay: expected a duration with a unit, such as "
                        "\"200ms\", got \"-1ms\": negative values are not allowed",
                        "scenarios/a.json: /settings/deadlock_timeout: expected a duration with a unit, such as "
                        "\"200ms\", got \"2KB\": unknown unit \"KB\" (units: ns, us, ms, s, min, h, d)",
                        "scenarios/a.json: /settings/statement_timeout: expected a duration with a unit, such as "
                        "\"200ms\", got \"200\"",
                    });
}

TEST_CASE("config: size, frequency and bandwidth errors", "[config]")
{
  const auto doc       = parse(R"({"wal_buffers": "16KB", "shared_buffers": 8192, "block": 3.5,
                             "work_mem": "4kB", "clock": "3000", "disk": "2GB", "net": "1GB/s"})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    root.size("wal_buffers", "16MB", 0, 1e15);
    CHECK(root.size("shared_buffers", "128MB", 0, 1e15) == 8192);
    root.size("block", "8kB", 0, 1e15);
    root.size("work_mem", "64kB", 64 * 1024, 2.0 * 1024 * 1024 * 1024);
    root.frequency("clock", "3GHz", 1e6, 1e10);
    root.bandwidth("disk", "1GB/s", 0, 1e15);
    root.bandwidth("net", "100MB/s", 0, 100.0 * 1024 * 1024);
  });
  CHECK(problems ==
        Lines{
            "scenarios/a.json: /wal_buffers: expected a size with a unit, such as \"8GB\", or a whole number of bytes, "
            "got \"16KB\": unknown unit \"KB\" (did you mean \"kB\"? units are case-sensitive: B, kB, MB, GB, TB)",
            "scenarios/a.json: /block: expected a size with a unit, such as \"8GB\", or a whole number of bytes, got "
            "3.5: a size without unit is a number of bytes and must be a whole number",
            "scenarios/a.json: /work_mem: expected a size between 64kB and 2GB, got \"4kB\"",
            "scenarios/a.json: /clock: expected a frequency with a unit, such as \"3GHz\", got \"3000\"",
            "scenarios/a.json: /disk: expected a bandwidth with a unit, such as \"2GB/s\", got \"2GB\": unknown unit "
            "\"GB\" (units: B/s, kB/s, MB/s, GB/s, TB/s)",
            "scenarios/a.json: /net: expected a bandwidth of at most 100MB/s, got \"1GB/s\"",
        });
}

TEST_CASE("config: long offending values are shortened", "[config]")
{
  const std::string long_name(200, 'x');
  const auto doc       = parse(R"({"clients": ")" + long_name + R"("})");
  const Lines problems = problems_reading(doc, [](config::Object& root) { root.integer("clients", 1, 1, 10); });
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] ==
        "scenarios/a.json: /clients: expected an integer between 1 and 10, got \"" + std::string(56, 'x') + "...");
}

TEST_CASE("config: required keys", "[config]")
{
  const auto doc       = parse(R"({"hardware": {"cores": 4, "clock": null}})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto hardware = root.object("hardware");
    CHECK(hardware.integer("cores", std::nullopt, 1, 1024) == 4);
    CHECK(hardware.integer("sockets", std::nullopt, 1, 8) == 1);
    CHECK(hardware.frequency("clock", std::nullopt, 1e6, 1e10) == 1e6);
    CHECK(hardware.string("name", std::nullopt).empty());
    CHECK(hardware.choice("smt", std::nullopt, {"on", "off"}) == "on");
    CHECK_FALSE(hardware.boolean("numa", std::nullopt));
    CHECK(root.object("workload").duration("duration", std::nullopt, 0, 1e6) == 0);
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /hardware/sockets: missing required key",
                        "scenarios/a.json: /hardware/clock: missing required key",
                        "scenarios/a.json: /hardware/name: missing required key",
                        "scenarios/a.json: /hardware/smt: missing required key",
                        "scenarios/a.json: /hardware/numa: missing required key",
                        "scenarios/a.json: /workload/duration: missing required key",
                    });
}

TEST_CASE("config: unknown keys, with the nearest declared name suggested", "[config]")
{
  const auto doc       = parse(R"({"wal": {"wal_bufers": "16MB", "wal_writer_delay": "200ms", "zzz": 1},
                             "locks": {"num_xloginsert_locks": 8}, "colour": "blue",
                             "pgbench": {"clients": 8, "script": {"name": "tpcb-like"}}})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto wal = root.object("wal");
    wal.size("wal_buffers", "16MB", 0, 1e12);
    wal.duration("wal_writer_delay", "200ms", 0, 10);
    root.object("locks").integer("NUM_XLOGINSERT_LOCKS", 8, 1, 128);
    root.object("pgbench").integer("clients", 1, 1, 1000);
    root.string("color", std::string("red"));
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /colour: unknown key (did you mean \"color\"?)",
                        "scenarios/a.json: /locks/num_xloginsert_locks: unknown key (did you mean "
                        "\"NUM_XLOGINSERT_LOCKS\"?)",
                        "scenarios/a.json: /pgbench/script: unknown key",
                        "scenarios/a.json: /wal/wal_bufers: unknown key (did you mean \"wal_buffers\"?)",
                        "scenarios/a.json: /wal/zzz: unknown key",
                    });
}

TEST_CASE("config: undeclared objects are one unknown key, opened ones are searched", "[config]")
{
  const auto doc       = parse(R"({"hardware": {"cpu": {"cores": 4, "smt": true}, "disk": {"latency": "20us"}},
                             "servers": [{"name": "a", "port": 1}, {"name": "b"}]})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto hardware = root.object("hardware");
    hardware.object("cpu").integer("cores", 1, 1, 64);
    for (auto& server : root.objects("servers")) server.string("name", std::nullopt);
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /hardware/cpu/smt: unknown key",
                        "scenarios/a.json: /hardware/disk: unknown key",
                        "scenarios/a.json: /servers/0/port: unknown key",
                    });
}

TEST_CASE("config: keys starting with an underscore are documentation", "[config]")
{
  const auto doc = parse(R"({"_comment": "fitted to figure 3", "wal": {"_source": "xlog.c", "_x": {"y": 1},
                             "segment": "16MB"}})");
  CHECK(
      problems_reading(doc, [](config::Object& root) { root.object("wal").size("segment", "16MB", 0, 1e12); }).empty());
}

TEST_CASE("config: object and objects on values of the wrong type", "[config]")
{
  const auto doc       = parse(R"({"wal": 3, "disks": {"a": 1}, "servers": [{"port": 5432}, 7, "x"],
                             "settings": {"fsync": true}})");
  const Lines problems = problems_reading(doc, [](config::Object& root) {
    auto wal = root.object("wal");
    CHECK(wal.integer("segments", 4, 1, 10) == 4);
    CHECK_FALSE(wal.has("segments"));
    CHECK(root.objects("disks").empty());
    const auto servers = root.objects("servers");
    REQUIRE(servers.size() == 1);
    CHECK(servers[0].pointer() == "/servers/0");
    CHECK(root.objects("absent").empty());
    // Asking for the same object twice is fine: each view declares into the same object.
    CHECK(root.object("settings").boolean("fsync", false));
    CHECK(root.object("settings").boolean("fsync", false));
  });
  CHECK(problems == Lines{
                        "scenarios/a.json: /wal: expected an object, got 3",
                        "scenarios/a.json: /disks: expected an array of objects, got {\"a\":1}",
                        "scenarios/a.json: /servers/1: expected an object, got 7",
                        "scenarios/a.json: /servers/2: expected an object, got \"x\"",
                        "scenarios/a.json: /servers/0/port: unknown key",
                    });
}

TEST_CASE("config: fail records semantic problems", "[config]")
{
  const auto doc = parse(R"({"pgbench": {"clients": 4, "jobs": 8}})");
  config::Reader reader(doc);
  auto pgbench       = reader.root().object("pgbench");
  const auto clients = pgbench.integer("clients", 1, 1, 1000);
  const auto jobs    = pgbench.integer("jobs", 1, 1, 1000);
  CHECK(reader.ok());
  if (jobs > clients) pgbench.fail("jobs", "must not exceed clients (4)");
  pgbench.fail("", "is inconsistent");
  reader.fail("/pgbench/clients", "too few for this test");
  CHECK_FALSE(reader.ok());
  CHECK(problems_of([&] { reader.finish(); }) == Lines{
                                                     "scenarios/a.json: /pgbench/jobs: must not exceed clients (4)",
                                                     "scenarios/a.json: /pgbench: is inconsistent",
                                                     "scenarios/a.json: /pgbench/clients: too few for this test",
                                                 });
}

TEST_CASE("config: every problem is reported in one error", "[config]")
{
  const auto doc = parse(R"({"clients": 0, "delay": "5", "typo": 1})");
  config::Reader reader(doc);
  auto root = reader.root();
  root.integer("clients", 1, 1, 10);
  root.duration("delay", "1s", 0, 10);
  root.boolean("required", std::nullopt);
  try {
    reader.finish();
    FAIL("finish did not throw");
  } catch (const config::Error& error) {
    REQUIRE(error.problems().size() == 4);
    CHECK(std::string(error.what()) ==
          "scenarios/a.json: /clients: expected an integer between 1 and 10, got 0\n"
          "scenarios/a.json: /delay: expected a duration with a unit, such as \"200ms\", got \"5\"\n"
          "scenarios/a.json: /required: missing required key\n"
          "scenarios/a.json: /typo: unknown key");
    CHECK(error.problems()[3].file == "scenarios/a.json");
    CHECK(error.problems()[3].pointer == "/typo");
    CHECK(error.problems()[3].message == "unknown key");
  }
}

TEST_CASE("config: resolved holds the effective values in the document's style", "[config]")
{
  const auto doc = parse(R"({"pgbench": {"clients": 64}, "wal": {"writer_delay": "0.2s"},
                             "disks": [{"latency": "20us"}, {}]})");
  config::Reader reader(doc);
  auto root    = reader.root();
  auto pgbench = root.object("pgbench");
  pgbench.integer("clients", 1, 1, 1000);
  pgbench.choice("mode", "simple", {"simple", "prepared"});
  pgbench.numbers("weights", std::vector<double>{1, 2}, 0, 10);
  auto wal = root.object("wal");
  wal.duration("writer_delay", "200ms", 0, 10);
  wal.size("buffers", "16MB", 0, 1e12);
  wal.boolean("sync", true);
  wal.number("ratio", 0.5, 0, 1);
  root.object("hardware").frequency("clock", "3GHz", 0, 1e10);
  root.object("hardware").bandwidth("disk", "2GB/s", 0, 1e12);
  root.object("empty");
  for (auto& disk : root.objects("disks")) disk.duration("latency", "10us", 0, 1);
  root.objects("nics");
  reader.finish();
  CHECK(reader.resolved() == json::parse(R"({
    "pgbench": {"clients": 64, "mode": "simple", "weights": [1.0, 2.0]},
    "wal": {"writer_delay": "200ms", "buffers": "16MB", "sync": true, "ratio": 0.5},
    "hardware": {"clock": "3GHz", "disk": "2GB/s"},
    "empty": {},
    "disks": [{"latency": "20us"}, {"latency": "10us"}],
    "nics": []
  })"));
}

TEST_CASE("config: syntax errors give line and column", "[config]")
{
  CHECK(problems_of([] { parse("{\n  \"a\": 1,\n  \"b\": tru!\n}"); }) ==
        Lines{"scenarios/a.json: line 3, column 11: syntax error: invalid literal; last read: '\"b\": tru!'"});
  CHECK(problems_of([] { parse(""); }) ==
        Lines{"scenarios/a.json: line 1, column 1: syntax error: unexpected end of input; expected '[', '{', or a "
              "literal"});
  CHECK(problems_of([] { parse("{\"a\": 1e400}"); }) == Lines{"scenarios/a.json: number overflow parsing '1e400'"});
  CHECK(problems_of([] { parse("[1, 2]"); }) ==
        Lines{"scenarios/a.json: expected a JSON object at the top level, got [1,2]"});
}

TEST_CASE("config: duplicate keys are reported", "[config]")
{
  CHECK(problems_of([] { parse(R"({"a": 1, "b": {"c": 1, "c": 2}, "l": [0, {"x": 1, "x": 1}], "a": 2})"); }) ==
        Lines{
            "scenarios/a.json: /b/c: duplicate key (JSON would silently keep only the last value)",
            "scenarios/a.json: /l/1/x: duplicate key (JSON would silently keep only the last value)",
            "scenarios/a.json: /a: duplicate key (JSON would silently keep only the last value)",
        });
}

TEST_CASE("config: absurdly deep nesting is refused", "[config]")
{
  const std::string deep = "{\"a\": " + std::string(150, '[') + std::string(150, ']') + "}";
  // The root object and 99 arrays are allowed; the 100th array is one too many.
  std::string pointer = "/a";
  for (int level = 0; level < 99; ++level) pointer += "/0";
  CHECK(problems_of([&] { parse(deep); }) ==
        Lines{"scenarios/a.json: " + pointer + ": nested more than 100 levels deep"});
  CHECK_NOTHROW(parse("{\"a\": " + std::string(99, '[') + std::string(99, ']') + "}"));
}

TEST_CASE("config: load reports unreadable files", "[config]")
{
  const TempDir dir;
  const std::string missing = dir.path("missing.json");
  CHECK(problems_of([&] { config::Document::load(missing); }) ==
        Lines{missing + ": cannot read file: No such file or directory"});
  CHECK(problems_of([&] { config::Document::load(dir.path("")); }) ==
        Lines{dir.path("") + ": cannot read file: is a directory"});
}

TEST_CASE("config: extends merges objects and replaces arrays and scalars", "[config]")
{
  const TempDir dir;
  dir.write("hardware/base.json", R"({"cpu": {"cores": 4, "clock": "3GHz"}, "disks": [1, 2, 3], "name": "base",
                                      "only_base": true})");
  const std::string top = dir.write("top.json", R"({"extends": "hardware/base.json",
                                                    "cpu": {"cores": 8}, "disks": [9], "name": "top"})");
  const auto doc        = config::Document::load(top);
  CHECK(doc.name() == top);
  CHECK(doc.json() == json::parse(R"({"cpu": {"cores": 8, "clock": "3GHz"}, "disks": [9], "name": "top",
                                      "only_base": true})"));
  const std::string base = (fs::path(dir.path("")) / "hardware/base.json").lexically_normal().generic_string();
  CHECK(doc.origin("/cpu/cores") == top);
  CHECK(doc.origin("/cpu/clock") == base);
  CHECK(doc.origin("/cpu") == top);
  CHECK(doc.origin("/only_base") == base);
  CHECK(doc.origin("/disks") == top);
  CHECK(doc.origin("/disks/0") == top);
  CHECK(doc.origin("/name") == top);
  CHECK(doc.origin("") == top);
  CHECK(doc.origin("/absent/key") == top);
}

TEST_CASE("config: extends chains nest, are relative to their file, and work in nested objects", "[config]")
{
  const TempDir dir;
  dir.write("profiles/cpu/fast.json", R"({"clock": "4GHz", "cores": 2})");
  dir.write("profiles/machine.json", R"({"cpu": {"extends": "cpu/fast.json", "cores": 16}, "disk": "nvme"})");
  const std::string top = dir.write("scenarios/run.json", R"({"hardware": {"extends": "../profiles/machine.json",
                                                              "disk": "sata"}, "clients": 8})");
  const auto doc        = config::Document::load(top);
  CHECK(doc.json() == json::parse(R"({"hardware": {"cpu": {"clock": "4GHz", "cores": 16}, "disk": "sata"},
                                      "clients": 8})"));
  const std::string root = fs::path(dir.path("")).lexically_normal().generic_string();
  CHECK(doc.origin("/hardware/cpu/clock") == root + "profiles/cpu/fast.json");
  CHECK(doc.origin("/hardware/cpu/cores") == root + "profiles/machine.json");
  CHECK(doc.origin("/hardware/disk") == top);
  CHECK(doc.origin("/clients") == top);
}

TEST_CASE("config: Document::parse resolves extends against base_dir", "[config]")
{
  const TempDir dir;
  dir.write("base.json", R"({"a": 1, "b": 2})");
  const auto doc = config::Document::parse(R"({"extends": "base.json", "b": 3})", "inline", dir.path(""));
  CHECK(doc.json() == json::parse(R"({"a": 1, "b": 3})"));
  CHECK(doc.origin("/b") == "inline");
  CHECK(doc.origin("/a") == (fs::path(dir.path("")) / "base.json").lexically_normal().generic_string());
}

TEST_CASE("config: bad extends are reported where they are written", "[config]")
{
  const TempDir dir;
  const std::string a     = dir.write("a.json", R"({"extends": "b.json"})");
  const std::string b     = dir.write("b.json", R"({"x": {"extends": "c.json"}})");
  const std::string c     = dir.write("c.json", R"({"extends": "a.json"})");
  const std::string other = dir.write("other.json", R"({"extends": "missing.json", "y": {"extends": 3}})");
  const std::string self  = dir.write("self.json", R"({"x": {"extends": "self.json"}})");

  CHECK(problems_of([&] { config::Document::load(a); }) ==
        Lines{c + ": /extends: extends cycle: " + a + " -> " + b + " -> " + c + " -> " + a});
  CHECK(problems_of([&] { config::Document::load(self); }) ==
        Lines{self + ": /x/extends: extends cycle: " + self + " -> " + self});
  CHECK(problems_of([&] { config::Document::load(other); }) ==
        Lines{
            other + ": /extends: cannot read \"" + dir.path("missing.json") + "\": No such file or directory",
            other + ": /y/extends: expected the name of a JSON file to extend, got 3",
        });
}

TEST_CASE("config: problems in a base file name the base file", "[config]")
{
  const TempDir dir;
  const std::string base = dir.write("hardware.json", R"({"cpu": {"cores": -2, "clock": "3GHz"}, "stray": 1})");
  const std::string top  = dir.write("top.json", R"({"extends": "hardware.json", "cpu": {"clock": "3GHz"}})");
  const auto doc         = config::Document::load(top);
  const Lines problems   = problems_reading(doc, [](config::Object& root) {
    auto cpu = root.object("cpu");
    cpu.integer("cores", 1, 1, 256);
    cpu.frequency("clock", std::nullopt, 1e6, 1e10);
  });
  CHECK(problems == Lines{
                        base + ": /cpu/cores: expected an integer between 1 and 256, got -2",
                        base + ": /stray: unknown key",
                    });

  dir.write("broken.json", "{\"a\": 1,,}");
  const std::string user = dir.write("user.json", R"({"extends": "broken.json"})");
  CHECK(problems_of([&] { config::Document::load(user); }) ==
        Lines{dir.path("broken.json") + ": line 1, column 9: syntax error: unexpected ','; expected string literal"});
}

TEST_CASE("config: --set creates and overrides values", "[config]")
{
  auto doc = parse(R"({"pgbench": {"clients": 8, "mode": "simple"}, "list": [{"a": 1}, {"a": 2}]})");
  doc.set("pgbench.clients=64");
  doc.set("settings.wal_writer_delay=200ms");
  doc.set("pgbench.mode=\"prepared\"");
  doc.set("list.1.a=5");
  doc.set("hardware={\"cores\": 4}");
  doc.set("weights=[1, 2]");
  doc.set("sync=false");
  doc.set("comment=hello world");
  doc.set("empty=");
  doc.set("eq=a=b");
  doc.set("pgbench.clients= 32");
  CHECK(doc.json() == json::parse(R"({"pgbench": {"clients": 32, "mode": "prepared"},
                                      "settings": {"wal_writer_delay": "200ms"},
                                      "list": [{"a": 1}, {"a": 5}], "hardware": {"cores": 4}, "weights": [1, 2],
                                      "sync": false, "comment": "hello world", "empty": "", "eq": "a=b"})"));
  CHECK(doc.origin("/pgbench/clients") == "--set pgbench.clients= 32");
  CHECK(doc.origin("/pgbench/mode") == "--set pgbench.mode=\"prepared\"");
  CHECK(doc.origin("/pgbench") == "scenarios/a.json");
  CHECK(doc.origin("/settings") == "--set settings.wal_writer_delay=200ms");
  CHECK(doc.origin("/settings/wal_writer_delay") == "--set settings.wal_writer_delay=200ms");
  CHECK(doc.origin("/hardware/cores") == "--set hardware={\"cores\": 4}");
  CHECK(doc.origin("/list/1/a") == "--set list.1.a=5");
  CHECK(doc.origin("/list/0/a") == "scenarios/a.json");
}

TEST_CASE("config: --set values are validated with their origin", "[config]")
{
  auto doc = parse(R"({"pgbench": {"clients": 8}})");
  doc.set("pgbench.clients=-3");
  doc.set("pgbench.typo=1");
  const Lines problems =
      problems_reading(doc, [](config::Object& root) { root.object("pgbench").integer("clients", 1, 1, 100000); });
  CHECK(problems == Lines{
                        "--set pgbench.clients=-3: /pgbench/clients: expected an integer between 1 and 100000, got -3",
                        "--set pgbench.typo=1: /pgbench/typo: unknown key",
                    });
}

TEST_CASE("config: malformed --set assignments", "[config]")
{
  auto doc          = parse(R"({"pgbench": {"clients": 8}, "list": [1, 2]})");
  const json before = doc.json();
  CHECK(problems_of([&] { doc.set("pgbench.clients"); }) == Lines{"--set pgbench.clients: expected key=value"});
  CHECK(problems_of([&] { doc.set("=3"); }) == Lines{"--set =3: empty key before \"=\""});
  CHECK(problems_of([&] { doc.set(".a=3"); }) == Lines{"--set .a=3: empty component in key \".a\""});
  CHECK(problems_of([&] { doc.set("a..b=3"); }) == Lines{"--set a..b=3: empty component in key \"a..b\""});
  CHECK(problems_of([&] { doc.set("a.=3"); }) == Lines{"--set a.=3: empty component in key \"a.\""});
  CHECK(problems_of([&] { doc.set("pgbench.clients.max=3"); }) ==
        Lines{"--set pgbench.clients.max=3: /pgbench/clients: cannot set a key inside 8, which is not an object"});
  CHECK(problems_of([&] { doc.set("list.x=3"); }) ==
        Lines{"--set list.x=3: /list: expected an index into the array, got \"x\""});
  CHECK(problems_of([&] { doc.set("list.2=3"); }) ==
        Lines{"--set list.2=3: /list: index 2 is out of range (the array has 2 elements)"});
  CHECK(problems_of([&] { doc.set("extends=x.json"); }) ==
        Lines{"--set extends=x.json: \"extends\" can only be used in scenario files"});
  CHECK(problems_of([&] { doc.set(R"(a={"b": 1, "b": 2})"); }) ==
        Lines{R"(--set a={"b": 1, "b": 2}: /b: duplicate key (JSON would silently keep only the last value))"});
  CHECK(problems_of([&] { doc.set("a=\xff"); }) == Lines{"--set a=\xff: not valid UTF-8"});
  CHECK(doc.json() == before);
}

TEST_CASE("config: problem and pointer helpers", "[config]")
{
  CHECK(config::Problem{"a.json", "/x", "bad"}.to_string() == "a.json: /x: bad");
  CHECK(config::Problem{"a.json", "", "bad"}.to_string() == "a.json: bad");
  CHECK(config::escape_pointer_token("a/b~c") == "a~1b~0c");
  CHECK(std::string(config::Error(std::vector<config::Problem>{}).what()) == "invalid scenario");

  const auto doc = parse(R"({"a/b": {"c~d": "x"}})");
  const Lines problems =
      problems_reading(doc, [](config::Object& root) { root.object("a/b").integer("c~d", 1, 1, 2); });
  CHECK(problems == Lines{"scenarios/a.json: /a~1b/c~0d: expected an integer between 1 and 2, got \"x\""});
}
