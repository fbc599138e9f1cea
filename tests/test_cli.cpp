/* Scenario-level tests of the walsim command line: the built binary runs as a child process, as
 * a user runs it, and its exit status, stdout, stderr and output files are checked.
 *
 * Runs use a tiny scenario (two clients, 0.2 simulated seconds) written into a temporary
 * directory and extending the shipped hardware and cost profiles, so each test takes well under
 * a second.
 */
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;

namespace {

const std::string kWalsim    = WALSIM_BINARY;
const std::string kProbe     = WALSIM_PROBE_BINARY;
const std::string kSourceDir = WALSIM_SOURCE_DIR;

struct Outcome {
  int status = -1; // exit status, or 128 + signal number
  std::string out;
  std::string err;
};

std::string read_file(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

/// A directory of its own for each test, removed with everything in it.
class TempDir {
public:
  TempDir()
  {
    const char* tmp      = std::getenv("TMPDIR");
    std::string pattern  = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/walsim-cli-XXXXXX";
    const char* dir_name = mkdtemp(pattern.data());
    REQUIRE(dir_name != nullptr);
    path_ = dir_name;
  }
  ~TempDir()
  {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&)            = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::set<std::string> entries() const
  {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(path_)) names.insert(entry.path().filename().string());
    return names;
  }

private:
  fs::path path_;
};

/// Runs a binary with args, stdin from /dev/null, stdout and stderr captured through files.
Outcome run_binary(const std::string& binary, const std::vector<std::string>& args, const TempDir& dir)
{
  const std::string out_path = dir / ".stdout";
  const std::string err_path = dir / ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

  std::vector<std::string> argv_store{binary};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid       = 0;
  const int error = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(error == 0);
  int wait_status = 0;
  REQUIRE(waitpid(pid, &wait_status, 0) == pid);

  Outcome outcome;
  if (WIFEXITED(wait_status))
    outcome.status = WEXITSTATUS(wait_status);
  else if (WIFSIGNALED(wait_status))
    outcome.status = 128 + WTERMSIG(wait_status);
  outcome.out = read_file(out_path);
  outcome.err = read_file(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return outcome;
}

Outcome walsim(const std::vector<std::string>& args, const TempDir& dir)
{
  return run_binary(kWalsim, args, dir);
}

std::string shipped(const std::string& relative)
{
  return kSourceDir + "/scenarios/" + relative;
}

/// Two clients for 0.2 simulated seconds on the shipped profiles of the 2-core machine.
nlohmann::json tiny_scenario()
{
  return {{"_about", "a tiny run for the command-line tests"},
          {"hardware", {{"extends", shipped("hardware/local-2core.json")}}},
          {"costs", {{"extends", shipped("costs/pg15.json")}}},
          {"pgbench", {{"clients", 2}, {"time", "0.2s"}}},
          {"run", {{"warmup", "0s"}, {"seed", 1}}}};
}

std::string write_scenario(const TempDir& dir, const std::string& name, const nlohmann::json& scenario)
{
  const std::string path = dir / name;
  write_file(path, scenario.dump(2));
  return path;
}

void check_mentions(const std::string& text, const std::vector<std::string>& words)
{
  for (const auto& word : words) {
    INFO("expected to find " << word);
    CHECK(contains(text, word));
  }
}

const std::vector<std::string> kScenarioOptions = {"--set",  "--seed",    "-c",      "--clients", "-j",
                                                   "--jobs", "-T",        "--time",  "-M",        "--protocol",
                                                   "-b",     "--builtin", "--scale", "-h",        "--help"};

/// A scenario error: exit status 2, the problem as FILE: /pointer: message on stderr, nothing on
/// stdout, and no result file although --json asked for one.
void check_rejected(const TempDir& dir, const std::vector<std::string>& args, const std::string& expected)
{
  const std::string json_path = dir / "result.json";
  const auto before           = dir.entries();
  std::vector<std::string> run_args{"run"};
  run_args.insert(run_args.end(), args.begin(), args.end());
  run_args.insert(run_args.end(), {"--json", json_path});
  const Outcome run = walsim(run_args, dir);
  INFO("stderr: " << run.err);
  CHECK(run.status == 2);
  CHECK(contains(run.err, "walsim: " + expected));
  CHECK(run.out.empty());
  CHECK_FALSE(fs::exists(json_path));
  CHECK(dir.entries() == before);

  std::vector<std::string> validate_args{"validate"};
  validate_args.insert(validate_args.end(), args.begin(), args.end());
  const Outcome validate = walsim(validate_args, dir);
  INFO("validate stderr: " << validate.err);
  CHECK(validate.status == 2);
  CHECK(contains(validate.err, "walsim: " + expected));
}

/// The keys of a resolved scenario, dotted ("settings.wal_writer_delay").
void leaf_keys(const nlohmann::json& node, const std::string& prefix, std::set<std::string>& keys)
{
  if (!node.is_object()) {
    keys.insert(prefix);
    return;
  }
  for (const auto& [key, value] : node.items()) leaf_keys(value, prefix.empty() ? key : prefix + "." + key, keys);
}

} // namespace

TEST_CASE("CLI: walsim --help exits 0 and lists every command and option", "[cli]")
{
  TempDir dir;
  for (const std::string flag : {"--help", "-h"}) {
    const Outcome o = walsim({flag}, dir);
    CHECK(o.status == 0);
    check_mentions(
        o.out, {"usage: walsim", "run SCENARIO", "validate SCENARIO", "-h, --help", "-V, --version", "Exit status"});
  }
}

TEST_CASE("CLI: walsim run --help exits 0 and lists every option", "[cli]")
{
  TempDir dir;
  const Outcome o = walsim({"run", "--help"}, dir);
  CHECK(o.status == 0);
  check_mentions(o.out, {"usage: walsim run SCENARIO.json"});
  check_mentions(o.out, kScenarioOptions);
  check_mentions(o.out, {"--json", "--reproducible", "-P", "--progress", "-q", "--quiet", "--sg-cfg"});
}

TEST_CASE("CLI: walsim validate --help exits 0 and lists every option", "[cli]")
{
  TempDir dir;
  const Outcome o = walsim({"validate", "--help"}, dir);
  CHECK(o.status == 0);
  check_mentions(o.out, {"usage: walsim validate SCENARIO.json", "FILE: /json/pointer"});
  check_mentions(o.out, kScenarioOptions);
  check_mentions(o.out, {"--resolved"});
}

TEST_CASE("CLI: walsim --version names walsim and SimGrid", "[cli]")
{
  TempDir dir;
  for (const std::string flag : {"--version", "-V"}) {
    const Outcome o = walsim({flag}, dir);
    CHECK(o.status == 0);
    check_mentions(o.out, {"walsim 0.", "SimGrid 3.32"});
  }
}

TEST_CASE("CLI: no arguments is a usage error with exit status 2", "[cli]")
{
  TempDir dir;
  const Outcome o = walsim({}, dir);
  CHECK(o.status == 2);
  CHECK(contains(o.err, "usage: walsim <command>"));
  CHECK(o.out.empty());
}

TEST_CASE("CLI: an unknown command is a usage error with exit status 2", "[cli]")
{
  TempDir dir;
  const Outcome o = walsim({"simulate", "x.json"}, dir);
  CHECK(o.status == 2);
  CHECK(contains(o.err, "unknown command \"simulate\""));
  CHECK(contains(o.err, "usage: walsim <command>"));
}

TEST_CASE("CLI: an unknown option is a usage error with exit status 2", "[cli]")
{
  TempDir dir;
  const std::string scenario = write_scenario(dir, "tiny.json", tiny_scenario());
  for (const std::string command : {"run", "validate"}) {
    const Outcome o = walsim({command, scenario, "--no-such-option"}, dir);
    INFO(command << ": " << o.err);
    CHECK(o.status == 2);
    CHECK(contains(o.err, "no-such-option"));
    CHECK(contains(o.err, "usage: walsim " + command + " SCENARIO.json"));
    CHECK(o.out.empty());
  }
}

TEST_CASE("CLI: a scenario argument is required", "[cli]")
{
  TempDir dir;
  for (const std::string command : {"run", "validate"}) {
    const Outcome o = walsim({command}, dir);
    CHECK(o.status == 2);
    CHECK(contains(o.err, "no scenario file given"));
  }
}

TEST_CASE("CLI: walsim validate accepts the tiny scenario and every shipped one", "[cli]")
{
  TempDir dir;
  const Outcome tiny = walsim({"validate", write_scenario(dir, "tiny.json", tiny_scenario())}, dir);
  INFO(tiny.err);
  CHECK(tiny.status == 0);
  CHECK(contains(tiny.out, "valid"));
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const Outcome o = walsim({"validate", entry.path().string()}, dir);
    INFO(entry.path() << ": " << o.err);
    CHECK(o.status == 0);
  }
}

TEST_CASE("CLI: caches, translations and huge pages are rejected where they are inconsistent or misspelt", "[cli]")
{
  TempDir dir;
  auto shared                                       = tiny_scenario();
  shared["hardware"]["cpu"]["shared_cache"]["size"] = "8MB";
  const std::string shared_path                     = write_scenario(dir, "shared.json", shared);
  check_rejected(dir, {shared_path, "--set", "hardware.cpu.cache.size=0B"},
                 shared_path + ": /hardware/cpu/shared_cache: needs the private cache (cpu.cache.size)");
  auto entries                                         = tiny_scenario();
  entries["hardware"]["cpu"]["translation"]["refault"] = "2us";
  const std::string entries_path                       = write_scenario(dir, "entries.json", entries);
  check_rejected(dir, {entries_path}, entries_path + ": /hardware/cpu/translation: needs entries above 0");
  auto spaces                                           = tiny_scenario();
  spaces["hardware"]["cpu"]["address_spaces"]["reload"] = "4us";
  const std::string spaces_path                         = write_scenario(dir, "spaces.json", spaces);
  check_rejected(dir, {spaces_path}, spaces_path + ": /hardware/cpu/address_spaces: needs entries above 0");
  auto script                                                    = tiny_scenario();
  script["costs"]["shared_pages_per_transaction"]["select_only"] = 38;
  const std::string script_path                                  = write_scenario(dir, "script.json", script);
  check_rejected(dir, {script_path},
                 script_path + ": /costs/shared_pages_per_transaction/select_only: unknown key (did you mean "
                               "\"select-only\"?)");
  const std::string plain = write_scenario(dir, "plain.json", tiny_scenario());
  check_rejected(dir, {plain, "--set", "settings.huge_pages=try"},
                 "--set settings.huge_pages=try: /settings/huge_pages: expected one of");
}

TEST_CASE("CLI: an unknown key is rejected with the nearest valid name", "[cli]")
{
  TempDir dir;
  auto scenario                            = tiny_scenario();
  scenario["settings"]["wal_writer_delai"] = "100ms";
  const std::string path                   = write_scenario(dir, "typo.json", scenario);
  check_rejected(dir, {path}, path + ": /settings/wal_writer_delai: unknown key (did you mean \"wal_writer_delay\"?)");
}

TEST_CASE("CLI: a value of the wrong type is rejected", "[cli]")
{
  TempDir dir;
  auto scenario                  = tiny_scenario();
  scenario["pgbench"]["clients"] = "two";
  const std::string path         = write_scenario(dir, "type.json", scenario);
  check_rejected(dir, {path}, path + ": /pgbench/clients: expected an integer");
}

TEST_CASE("CLI: an out-of-range value is rejected", "[cli]")
{
  TempDir dir;
  auto scenario                  = tiny_scenario();
  scenario["pgbench"]["clients"] = 0;
  const std::string path         = write_scenario(dir, "range.json", scenario);
  check_rejected(dir, {path}, path + ": /pgbench/clients: expected an integer between 1 and");
}

TEST_CASE("CLI: a quantity with a bad unit is rejected", "[cli]")
{
  TempDir dir;
  auto scenario                            = tiny_scenario();
  scenario["settings"]["wal_writer_delay"] = "200 parsecs";
  const std::string path                   = write_scenario(dir, "unit.json", scenario);
  check_rejected(dir, {path}, path + ": /settings/wal_writer_delay: expected a duration with a unit");
}

TEST_CASE("CLI: a missing required key is rejected", "[cli]")
{
  TempDir dir;
  auto profile = nlohmann::json::parse(read_file(shipped("hardware/local-2core.json")));
  profile["cpu"].erase("cores_per_socket");
  write_file(dir / "no-cores.json", profile.dump(2));
  auto scenario          = tiny_scenario();
  scenario["hardware"]   = {{"extends", "no-cores.json"}};
  const std::string path = write_scenario(dir, "missing.json", scenario);
  check_rejected(dir, {path}, dir / "no-cores.json" + ": /hardware/cpu/cores_per_socket: missing required key");
}

TEST_CASE("CLI: a bad value inherited from an extended hardware profile names the profile's file", "[cli]")
{
  TempDir dir;
  auto profile            = nlohmann::json::parse(read_file(shipped("hardware/local-2core.json")));
  profile["cpu"]["clock"] = "3 GHzz";
  write_file(dir / "bad-clock.json", profile.dump(2));
  auto scenario          = tiny_scenario();
  scenario["hardware"]   = {{"extends", "bad-clock.json"}};
  const std::string path = write_scenario(dir, "inherits.json", scenario);
  check_rejected(dir, {path}, dir / "bad-clock.json" + ": /hardware/cpu/clock: expected a frequency with a unit");
}

TEST_CASE("CLI: a malformed --set is rejected", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "--set", "pgbench.clients"}, "--set pgbench.clients: expected key=value");
}

TEST_CASE("CLI: --set of an unknown key is rejected with the nearest valid name", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "--set", "pgbench.clinets=4"},
                 "--set pgbench.clinets=4: /pgbench/clinets: unknown key (did you mean \"clients\"?)");
}

TEST_CASE("CLI: --set values are validated as scenario values", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "-c", "0"}, "--set pgbench.clients=0: /pgbench/clients: expected an integer between 1");
  check_rejected(dir, {path, "-T", "5 fortnights"},
                 "--set pgbench.time=5 fortnights: /pgbench/time: expected a duration with a unit");
}

TEST_CASE("CLI: an unknown scheduler is rejected with the ones there are", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "--set", "hardware.os.scheduler=eevfd"},
                 "--set hardware.os.scheduler=eevfd: /hardware/os/scheduler: expected one of \"cfs\", \"eevdf\", "
                 "\"fifo\", got \"eevfd\"");
}

TEST_CASE("CLI: wake-up preemption with the FIFO scheduler is rejected", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "--set", "hardware.os.scheduler=fifo", "--set", "hardware.os.wakeup_preemption=true"},
                 "--set hardware.os.wakeup_preemption=true: /hardware/os/wakeup_preemption: expected false with "
                 "scheduler fifo");
}

TEST_CASE("CLI: placement on the previous CPU with one run queue is rejected", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir,
                 {path, "--set", "hardware.os.run_queues=global", "--set", "hardware.os.wake_placement=previous_cpu"},
                 "--set hardware.os.wake_placement=previous_cpu: /hardware/os/wake_placement: expected idle_cpu "
                 "with run_queues global");
}

TEST_CASE("CLI: a CPU list naming a CPU the machine lacks, or one twice, is rejected", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "--set", "hardware.os.server_cpus=[0,0]"},
                 "--set hardware.os.server_cpus=[0,0]: /hardware/os/server_cpus: expected distinct CPU numbers "
                 "from 0 to 1");
  check_rejected(dir, {path, "--set", "hardware.os.pgbench_cpus=[4096]"},
                 "--set hardware.os.pgbench_cpus=[4096]: /hardware/os/pgbench_cpus/0: expected a number between 0 "
                 "and 1, got 4096");
}

TEST_CASE("CLI: one key given two values on the command line is rejected", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "-c", "1", "--set", "pgbench.clients=16"},
                 "pgbench.clients is given twice on the command line, as pgbench.clients=16 and as pgbench.clients=1");
}

TEST_CASE("CLI: a scenario file that cannot be read is rejected", "[cli]")
{
  TempDir dir;
  const std::string missing = dir / "no-such-scenario.json";
  check_rejected(dir, {missing}, missing + ": cannot read file");
  fs::create_directory(dir / "a-directory.json");
  check_rejected(dir, {dir / "a-directory.json"}, dir / "a-directory.json" + ": cannot read file: is a directory");
}

TEST_CASE("CLI: a JSON syntax error is rejected with its line and column", "[cli]")
{
  TempDir dir;
  const std::string path = dir / "syntax.json";
  write_file(path, "{\n  \"pgbench\": {\"clients\": 2,}\n}\n");
  check_rejected(dir, {path}, path + ": line 2, column ");
}

TEST_CASE("CLI: every problem of a scenario is reported at once", "[cli]")
{
  TempDir dir;
  auto scenario                            = tiny_scenario();
  scenario["pgbench"]["clients"]           = -1;
  scenario["settings"]["wal_writer_delay"] = "soon";
  scenario["run"]["sed"]                   = 3;
  const std::string path                   = write_scenario(dir, "many.json", scenario);
  const Outcome o                          = walsim({"validate", path}, dir);
  CHECK(o.status == 2);
  check_mentions(o.err, {path + ": /pgbench/clients: ", path + ": /settings/wal_writer_delay: ",
                         path + ": /run/sed: unknown key (did you mean \"seed\"?)"});
}

TEST_CASE("CLI: --json into a missing directory is rejected before running", "[cli]")
{
  TempDir dir;
  const std::string path     = write_scenario(dir, "tiny.json", tiny_scenario());
  const std::string json_out = dir / "no-such-dir/result.json";
  const auto before          = dir.entries();
  const Outcome o            = walsim({"run", path, "--json", json_out}, dir);
  CHECK(o.status == 2);
  CHECK(contains(o.err, "no-such-dir"));
  CHECK(o.out.empty());
  CHECK_FALSE(fs::exists(json_out));
  CHECK(dir.entries() == before);
}

TEST_CASE("CLI: walsim run prints a pgbench-style summary and writes its JSON atomically", "[cli]")
{
  TempDir dir;
  const std::string path     = write_scenario(dir, "tiny.json", tiny_scenario());
  const std::string json_out = dir / "result.json";
  const Outcome o            = walsim({"run", path, "--json", json_out}, dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  check_mentions(o.out, {"scaling factor: 1", "number of clients: 2", "duration: 0.2 s",
                         "number of transactions actually processed: ", "latency average = ", "tps = ", "WALInsertLock",
                         "WALWriteLock"});
  const auto result = nlohmann::json::parse(read_file(json_out));
  CHECK(result.contains("host_measurements"));
  CHECK(dir.entries() == std::set<std::string>{"tiny.json", "result.json"});
}

TEST_CASE("CLI: transactions before the window leave rows whose first reader reads their CLOG page in", "[cli]")
{
  TempDir dir;
  auto scenario                            = tiny_scenario();
  scenario["pgbench"]["scale"]             = 10;
  scenario["settings"]["NUM_CLOG_BUFFERS"] = 4;
  const std::string path                   = write_scenario(dir, "aged.json", scenario);
  const auto blks_read                     = [&](const std::string& prior) {
    const std::string out = dir / ("aged-" + prior + ".json");
    const Outcome o       = walsim({"run", path, "--set", "pgbench.prior_transactions=" + prior, "--json", out}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(read_file(out))["pg_stat_slru_xact"]["blks_read"].get<std::uint64_t>();
  };
  CHECK(blks_read("0") == 0);
  CHECK(blks_read("2000000") > 0); // 61 pages of them, 4 buffers
  scenario["pgbench"]["prior_transactions"] = 2000000000;
  const std::string bad                     = write_scenario(dir, "too-old.json", scenario);
  check_rejected(dir, {bad}, bad + ": /pgbench/prior_transactions: expected an integer between 0 and");
}

TEST_CASE("CLI: the summary prints each insertion lock's LWLOCK_STATS line under their sum", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome o        = walsim({"run", path, "--set", "settings.NUM_XLOGINSERT_LOCKS=3"}, dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  // exacq is the third column: the lock's name, then shacq, then exacq.
  const auto exacq_of = [&](const std::string& prefix) {
    const auto at = o.out.find("\n" + prefix + " ");
    REQUIRE(at != std::string::npos);
    std::istringstream fields(o.out.substr(at + 1 + prefix.size()));
    long long shacq = -1, exacq = -1;
    fields >> shacq >> exacq;
    return exacq;
  };
  const long long sum = exacq_of("  WALInsertLock");
  CHECK(sum > 0);
  long long each = 0;
  for (int i = 0; i < 3; i++) each += exacq_of("    WALInsertLock " + std::to_string(i));
  CHECK(each == sum);
  CHECK_FALSE(contains(o.out, "WALInsertLock 3"));
  const Outcome one = walsim({"run", path, "--set", "settings.NUM_XLOGINSERT_LOCKS=1"}, dir);
  REQUIRE(one.status == 0);
  CHECK_FALSE(contains(one.out, "WALInsertLock 0"));
}

TEST_CASE("CLI: the summary prints pg_stat_slru and the hint bits, refused only while commits wait for the WAL "
          "writer",
          "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const auto refused     = [&](const std::string& mode) {
    const Outcome o = walsim({"run", path, "--set", "settings.synchronous_commit=" + mode, "-q"}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(contains(o.out, "\npg_stat_slru (Xact): blks_zeroed="));
    CHECK(contains(o.out, "\ntransaction status per transaction: "));
    const std::string tag = "\nhint bits per transaction: ";
    const auto at         = o.out.find(tag);
    REQUIRE(at != std::string::npos);
    std::istringstream fields(o.out.substr(at + tag.size()));
    double set = -1, per_txn_refused = -1;
    std::string word;
    fields >> set >> word >> per_txn_refused;
    CHECK(set > 0);
    return per_txn_refused;
  };
  // A synchronous commit is flushed before its status reaches pg_xact: no hint ever waits.
  CHECK(refused("on") == 0);
  CHECK(refused("off") > 0);
}

TEST_CASE("CLI: the summary prints the WAL writer's cycles, woken about once per asynchronous commit", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  struct Writer {
    double cycles = -1, per_txn = -1, woken = -1;
  };
  const auto writer = [&](const std::string& mode) {
    const Outcome o = walsim({"run", path, "--set", "settings.synchronous_commit=" + mode, "-q"}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    const std::string tag = "\nWAL writer: ";
    const auto at         = o.out.find(tag);
    REQUIRE(at != std::string::npos);
    std::istringstream fields(o.out.substr(at + tag.size()));
    Writer w;
    std::string word;
    char paren = 0;
    fields >> w.cycles >> word >> paren >> w.per_txn >> word >> word >> w.woken;
    return w;
  };
  const Writer off = writer("off");
  const Writer on  = writer("on");
  // XLogSetAsyncXactLSN sets the latch while a completed page is unflushed: most commits find it
  // unset; a synchronous commit never sets it, so the writer runs on its timer only.
  CHECK(off.per_txn > 0.3);
  CHECK(off.woken <= off.cycles);
  CHECK(off.woken > 0.5 * off.cycles);
  CHECK(on.per_txn < 0.1 * off.per_txn);
}

TEST_CASE("CLI: XLogCtl's spinlocks are counted where xlog.c takes them", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const std::string out  = dir / "r.json";
  const Outcome o        = walsim({"run", path, "--set", "settings.synchronous_commit=off", "--set",
                                   "run.checkpoint_at_start=false", "--json", out, "-q"},
                                  dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const auto result = nlohmann::json::parse(read_file(out));
  const auto stats  = [&](const std::string& name) {
    for (const auto& l : result["lwlock_stats"])
      if (l["name"] == name) return l;
    FAIL("no LWLOCK_STATS line for " << name);
    return nlohmann::json();
  };
  REQUIRE(result["checkpoints"] == 0);
  // insertpos_lck: once per record (ReserveXLogInsertLocation) and once per
  // WaitXLogInsertionsToFinish call. Counters restart when the measured window opens, which may
  // fall between a process's count of one and its spinlock: at most one each per process.
  const long long expected = result["pg_stat_wal"]["wal_records"].get<long long>() +
                             result["wal_wait_for_insert_to_finish_calls"].get<long long>();
  const long long processes = result["pgbench"]["clients"].get<long long>() + 1; // and the WAL writer
  CHECK(std::llabs(stats("insertpos_lck")["exacq"].get<long long>() - expected) <= processes);
  CHECK(expected > 100 * processes);
  // info_lck: at least once per asynchronous commit (XLogSetAsyncXactLSN).
  CHECK(stats("info_lck")["exacq"].get<long long>() >= result["pgbench"]["transactions"].get<long long>());
  CHECK(contains(o.out, "\n  info_lck "));
}

TEST_CASE("CLI: tables larger than shared_buffers are read into it, and the summary says so", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome fits     = walsim({"run", path, "--reproducible", "--json", dir / "fits.json"}, dir);
  const Outcome small    = walsim(
         {"run", path, "--reproducible", "--set", "settings.shared_buffers=1MB", "--json", dir / "small.json"}, dir);
  INFO(fits.err << small.err);
  REQUIRE(fits.status == 0);
  REQUIRE(small.status == 0);
  const auto untracked = nlohmann::json::parse(read_file(dir / "fits.json"))["shared_buffers"];
  const auto tracked   = nlohmann::json::parse(read_file(dir / "small.json"))["shared_buffers"];
  CHECK(untracked["tracked"] == false);
  CHECK(untracked["reads"] == 0);
  CHECK_FALSE(contains(fits.out, "shared_buffers:"));
  CHECK(tracked["tracked"] == true);
  CHECK(tracked["buffers"] == 128);
  CHECK(tracked["relation_pages"].get<double>() > 128);
  CHECK(tracked["reads"].get<double>() > 0);
  CHECK(tracked["evictions"].get<double>() > 0);
  CHECK(contains(small.out, "shared_buffers: 128 buffers for "));
}

TEST_CASE("CLI: a shared_buffers that every client's pin exhausts fails the run clearly, as PostgreSQL would", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome o =
      walsim({"run", path, "-c", "64", "--set", "settings.shared_buffers=128kB", "--json", dir / "r.json"}, dir);
  CHECK(o.status == 1);
  CHECK(contains(o.err, "walsim: run failed: no unpinned buffers available: all 16 buffers"));
  CHECK_FALSE(fs::exists(dir / "r.json"));
}

TEST_CASE("CLI: an engine option SimGrid does not know is bad input with exit status 2", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome o        = walsim({"run", path, "--sg-cfg", "no/such-key:1", "--json", dir / "r.json"}, dir);
  CHECK(o.status == 2);
  CHECK(contains(o.err, "walsim: --sg-cfg: SimGrid rejected an engine option"));
  CHECK(contains(o.err, "no/such-key"));
  CHECK_FALSE(contains(o.err, "internal error"));
  CHECK_FALSE(fs::exists(dir / "r.json"));
}

TEST_CASE("CLI: the same scenario and seed give byte-identical output", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome first    = walsim({"run", path, "--seed", "7", "--reproducible", "--json", dir / "a.json"}, dir);
  const Outcome second   = walsim({"run", path, "--seed", "7", "--reproducible", "--json", dir / "b.json"}, dir);
  const Outcome other    = walsim({"run", path, "--seed", "8", "--reproducible", "--json", dir / "c.json"}, dir);
  const Outcome timed    = walsim({"run", path, "--seed", "7", "--json", dir / "d.json"}, dir);
  REQUIRE(first.status == 0);
  REQUIRE(second.status == 0);
  REQUIRE(other.status == 0);
  REQUIRE(timed.status == 0);

  CHECK(first.out == second.out);
  CHECK(first.out == timed.out);
  const std::string a = read_file(dir / "a.json");
  CHECK_FALSE(a.empty());
  CHECK(a == read_file(dir / "b.json"));
  CHECK(a != read_file(dir / "c.json"));

  // Without --reproducible only the host's measurements differ.
  auto reproducible = nlohmann::ordered_json::parse(a);
  auto with_host    = nlohmann::ordered_json::parse(read_file(dir / "d.json"));
  CHECK_FALSE(reproducible.contains("host_measurements"));
  REQUIRE(with_host.contains("host_measurements"));
  with_host.erase("host_measurements");
  CHECK(with_host.dump(2) + "\n" == a);
}

// A process's CPU work runs without an engine sleep when no other process could act before it
// ends (sim/lookahead.hpp). On the two-CPU local profile, where no two processes' events fall on
// the same instant, that must leave every byte of the result as it was. (On many-core profiles
// simultaneous events do occur; the engine orders those arbitrarily, and fewer engine sleeps
// order them differently, so results there agree statistically, not bytewise.)
TEST_CASE("CLI: running CPU work without engine sleeps leaves a local-profile run unchanged", "[cli]")
{
  TempDir dir;
  const std::string scenario = kSourceDir + "/scenarios/local-pg15-tpcb.json";
  const std::vector<std::string> args{"run", scenario, "-c", "8", "-T", "0.3s", "--reproducible", "--json"};
  auto with = [&](const fs::path& out) {
    std::vector<std::string> a = args;
    a.push_back(out);
    return walsim(a, dir);
  };
  const Outcome skipping = with(dir / "skip.json");
  REQUIRE(setenv("WALSIM_NO_SKIP", "1", 1) == 0);
  const Outcome sleeping = with(dir / "sleep.json");
  unsetenv("WALSIM_NO_SKIP");
  REQUIRE(skipping.status == 0);
  REQUIRE(sleeping.status == 0);
  CHECK(skipping.out == sleeping.out);
  const std::string a = read_file(dir / "skip.json");
  CHECK_FALSE(a.empty());
  CHECK(a == read_file(dir / "sleep.json"));
}

TEST_CASE("CLI: README's scenario reference lists every key of the shipped scenarios", "[cli]")
{
  TempDir dir;
  std::set<std::string> keys;
  for (const auto& entry : fs::directory_iterator(kSourceDir + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const Outcome o = walsim({"validate", "--resolved", entry.path().string()}, dir);
    INFO(entry.path() << ": " << o.err);
    REQUIRE(o.status == 0);
    leaf_keys(nlohmann::json::parse(o.out), "", keys);
  }
  const std::string readme = read_file(kSourceDir + "/README.md");
  REQUIRE_FALSE(keys.empty());
  for (const auto& key : keys) {
    INFO("README.md does not document the scenario key " << key);
    CHECK(contains(readme, "`" + key + "`"));
  }
}

TEST_CASE("CLI: .ci/run runs README command 2 as README.md shows it", "[cli]")
{
  const std::string readme = read_file(kSourceDir + "/README.md");
  const std::string ci     = read_file(kSourceDir + "/.ci/run");
  const std::string begin  = "<!-- command-2: begin -->";
  const std::string end    = "<!-- command-2: end -->";
  const auto first         = readme.find(begin);
  REQUIRE(first != std::string::npos);
  CHECK(readme.find(begin, first + 1) == std::string::npos);
  const auto last = readme.find(end, first);
  REQUIRE(last != std::string::npos);
  CHECK(contains(readme.substr(first, last - first), "ctest"));
  CHECK(contains(ci, begin));
  CHECK(contains(ci, end));
}

TEST_CASE("walsim-probe: prints the OS figures of a hardware profile, which walsim accepts", "[cli][probe]")
{
  TempDir dir;
  // The cache size is given, as on a virtual machine that hides its caches, so that the refill is
  // measured on every machine.
  const Outcome o = run_binary(kProbe,
                               {"--iterations", "200", "--dir", dir.path().string(), "--cache-size", "256kB",
                                "--shared-cache-size", "2MB", "--json"},
                               dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const auto figures = nlohmann::json::parse(o.out);
  std::vector<std::string> keys{"socket_send", "socket_recv", "context_switch", "fdatasync_cpu"};
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  if (CPU_COUNT(&allowed) >= 2) keys.insert(keys.end(), {"idle_wakeup", "idle_wakeup_cpu", "busy_wakeup_cpu"});
  for (const auto& key : keys) {
    INFO(key);
    REQUIRE(figures.at("os").contains(key));
    const std::string value = figures["os"][key].get<std::string>();
    CHECK(value.size() > 2);
    CHECK(value.substr(value.size() - 2) == "us");
  }
  CHECK(std::stod(figures.at("measured").at("fdatasync_latency").get<std::string>()) > 0);
  CHECK(std::stod(figures.at("measured").at("same_cpu_half_trip").get<std::string>()) > 0);
  CHECK(figures.at("measured").at("fdatasync_context_switches").get<double>() >= 0);
  CHECK(figures.at("measured").at("other_load_cpus").get<double>() >= 0);
  // A forked child's faults on shared memory: each timed read faulted once.
  for (const char* key : {"page_fault_read", "page_fault_write", "page_first_touch"}) {
    INFO(key);
    const std::string value = figures.at("os").at(key).get<std::string>();
    CHECK(value.substr(value.size() - 2) == "ns");
    CHECK(std::stod(value) > 0);
  }
  const std::string around = figures["os"].at("fault_around").get<std::string>();
  CHECK(around.substr(around.size() - 2) == "kB");
  CHECK(figures.at("measured").at("minor_faults_per_read_fault").get<double>() > 0.5);
  // The scheduler comes from the kernel's release; only EEVDF has a base slice to report.
  const std::string scheduler = figures.at("os").at("scheduler").get<std::string>();
  CHECK((scheduler == "cfs" || scheduler == "eevdf"));
  CHECK(figures["os"].contains("time_slice") == (scheduler == "eevdf"));
  CHECK_FALSE(figures.at("measured").at("kernel").get<std::string>().empty());
  if (CPU_COUNT(&allowed) >= 2) {
    const auto& scan = figures.at("measured").at("idle_gap_scan");
    REQUIRE(scan.size() == 8);
    CHECK(scan.front().at("idle_gap") == "0.0us");
    CHECK(scan.back().at("idle_gap") == "1000.0us");
    CHECK(std::stod(figures.at("measured").at("busy_cross_cpu_half_trip_cpu").get<std::string>()) >= 0);
    // The CPU taking the device's interrupts, if one takes them all (none on tmpfs).
    CHECK(figures["os"].at("io_interrupt_cpu").get<int>() >= -1);
    CHECK(std::stod(figures["os"].at("busy_io_interrupt").get<std::string>()) >= 0);
    CHECK(figures.at("measured").at("device_interrupts_per_fdatasync_by_cpu").size() ==
          static_cast<std::size_t>(CPU_COUNT(&allowed)));
  }
  CHECK(dir.entries().empty()); // its test file is removed

  // The direct measurements go into a scenario as they are.
  write_file(dir / "tiny.json", tiny_scenario().dump());
  std::vector<std::string> args{
      "validate", dir / "tiny.json",
      "--set",    "hardware.os.fdatasync_cpu=" + figures["os"]["fdatasync_cpu"].get<std::string>(),
      "--set",    "hardware.os.socket_send=" + figures["os"]["socket_send"].get<std::string>(),
      "--set",    "hardware.os.scheduler=" + scheduler,
      "--set",    "hardware.os.page_fault_read=" + figures["os"]["page_fault_read"].get<std::string>(),
      "--set",    "hardware.os.fault_around=" + figures["os"]["fault_around"].get<std::string>()};
  if (figures["os"].contains("time_slice"))
    args.insert(args.end(), {"--set", "hardware.os.time_slice=" + figures["os"]["time_slice"].get<std::string>()});
  if (figures["os"].contains("io_interrupt_cpu"))
    args.insert(args.end(),
                {"--set", "hardware.os.io_interrupt_cpu=" + figures["os"]["io_interrupt_cpu"].dump(), "--set",
                 "hardware.os.busy_io_interrupt=" + figures["os"]["busy_io_interrupt"].get<std::string>()});
  // The private cache, of the size given whatever sysfs says.
  REQUIRE(figures.contains("cpu"));
  const auto& cache = figures["cpu"].at("cache");
  CHECK(cache.at("size") == "256kB");
  CHECK(figures["measured"].at("cache_size_from") == "--cache-size");
  CHECK(std::stod(figures.at("measured").at("refill_chase_per_line").at("pushed_out").get<std::string>()) > 0);
  for (const char* key : {"size", "refill_per_kB"})
    args.insert(args.end(), {"--set", std::string("hardware.cpu.cache.") + key + "=" + cache[key].get<std::string>()});
  // The shared cache, measured from memory: a line pushed out of it costs more than one in place.
  const auto& shared = figures["cpu"].at("shared_cache");
  CHECK(shared.at("size") == "2048kB");
  const auto& shared_line = figures["measured"].at("shared_refill_chase_per_line");
  CHECK(std::stod(shared_line.at("pushed_out").get<std::string>()) > 0);
  for (const char* key : {"size", "refill_per_kB"})
    args.insert(args.end(),
                {"--set", std::string("hardware.cpu.shared_cache.") + key + "=" + shared[key].get<std::string>()});
  // The chase scan, 16 kB to 64 MB: a load from a buffer far larger than any cache (from memory)
  // takes longer than one from a buffer that fits the first level.
  const auto& scan = figures["measured"].at("chase_in_place_by_size");
  REQUIRE(scan.size() == 13);
  CHECK(scan.front().at("size") == "16kB");
  CHECK(scan.back().at("size") == "65536kB");
  CHECK(std::stod(scan.back().at("per_load").get<std::string>()) >
        std::stod(scan.front().at("per_load").get<std::string>()));
  const Outcome v = walsim(args, dir);
  INFO(v.err);
  CHECK(v.status == 0);
}

// A child process that keeps one CPU busy until the test ends, however it ends.
struct Spinner {
  pid_t pid = fork();
  Spinner()
  {
    if (pid == 0)
      for (volatile unsigned long i = 0;; i = i + 1) {
      }
  }
  ~Spinner()
  {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  Spinner(const Spinner&)            = delete;
  Spinner& operator=(const Spinner&) = delete;
};

TEST_CASE("walsim-probe: warns when other processes kept the machine busy", "[cli][probe]")
{
  TempDir dir;
  Outcome o;
  {
    const Spinner spinner;
    REQUIRE(spinner.pid > 0);
    o = run_binary(kProbe, {"--iterations", "2000", "--dir", dir.path().string(), "--json"}, dir);
  }
  INFO(o.err);
  REQUIRE(o.status == 0); // a warning, not a failure: the figures are still printed
  CHECK(nlohmann::json::parse(o.out).at("measured").at("other_load_cpus").get<double>() > 0.25);
  CHECK(contains(o.err, "warning: other processes kept"));
}

TEST_CASE("walsim-probe: bad usage exits 2, a failed measurement 1, with the reason", "[cli][probe]")
{
  TempDir dir;
  const Outcome usage = run_binary(kProbe, {"--iterations", "5"}, dir);
  CHECK(usage.status == 2);
  CHECK(contains(usage.err, "--iterations must be at least 100"));
  const Outcome unknown = run_binary(kProbe, {"--itrations", "500"}, dir);
  CHECK(unknown.status == 2);
  const Outcome unit = run_binary(kProbe, {"--cache-size", "1mb"}, dir);
  CHECK(unit.status == 2);
  CHECK(contains(unit.err, "--cache-size 1mb: unknown unit"));
  const Outcome tiny = run_binary(kProbe, {"--cache-size", "4kB"}, dir);
  CHECK(tiny.status == 2);
  CHECK(contains(tiny.err, "expected a size between 64kB and 1GB"));
  const Outcome below = run_binary(kProbe, {"--cache-size", "1MB", "--shared-cache-size", "512kB"}, dir);
  CHECK(below.status == 2);
  CHECK(contains(below.err, "--shared-cache-size 512kB: expected more than --cache-size 1MB"));
  const Outcome missing = run_binary(kProbe, {"--iterations", "100", "--dir", dir / "no/such/dir"}, dir);
  CHECK(missing.status == 1);
  CHECK(contains(missing.err, "cannot create"));
}

TEST_CASE("CLI: pgbench.heap_pages spreads the small tables' rows, and each UPDATE walks a longer HOT chain", "[cli]")
{
  TempDir dir;
  auto packed                     = tiny_scenario();
  auto spread                     = packed;
  spread["pgbench"]["heap_pages"] = {{"pgbench_tellers", 10}}; // scale 1: one teller per page
  const auto visited_per_txn      = [&](const std::string& name, const nlohmann::json& scenario) {
    const std::string json_out = dir / (name + ".out.json");
    const Outcome o = walsim({"run", write_scenario(dir, name + ".json", scenario), "--json", json_out}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    const auto result = nlohmann::json::parse(read_file(json_out));
    CHECK(result["scenario"]["resolved"]["pgbench"]["heap_pages"]["pgbench_branches"] == 1);
    return result["relations"]["pgbench_tellers"]["versions_visited"].get<double>() /
           result["pgbench"]["transactions"].get<double>();
  };
  const double from_packed = visited_per_txn("packed", packed);
  const double from_spread = visited_per_txn("spread", spread);
  INFO("versions visited per transaction: packed " << from_packed << ", spread " << from_spread);
  CHECK(from_spread > 1.5 * from_packed);
}

TEST_CASE("CLI: pgbench.heap_pages outside what the table's rows allow is rejected", "[cli]")
{
  TempDir dir;
  auto scenario                                        = tiny_scenario();
  scenario["pgbench"]["heap_pages"]["pgbench_tellers"] = 11; // scale 1: 10 rows
  const std::string path                               = write_scenario(dir, "pages.json", scenario);
  // A layout measured at one scale and run at another: the error says how to go on.
  check_rejected(dir, {path},
                 path + ": /pgbench/heap_pages/pgbench_tellers: expected an integer between 1 and 10 (pages "
                        "holding the table's 10 rows at this scale: at least as many as pgbench -i fills, at "
                        "most one row a page), got 11; a layout measured at another scale does not carry over: "
                        "set pgbench.heap_pages for this scale, or leave it out (--set 'pgbench.heap_pages={}')");
  scenario["pgbench"]["heap_pages"] = {{"pgbench_accounts", 100}};
  const std::string other           = write_scenario(dir, "accounts.json", scenario);
  check_rejected(dir, {other}, other + ": /pgbench/heap_pages/pgbench_accounts: unknown key");
}

TEST_CASE("CLI: more clients than max_connections are rejected, naming the setting to raise", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  check_rejected(dir, {path, "-c", "101"},
                 "--set pgbench.clients=101: /pgbench/clients: expected at most max_connections (100) clients, got "
                 "101 (PostgreSQL refuses the rest: raise settings.max_connections)");
}

TEST_CASE("CLI: run.activity_sampling reads pg_stat_activity as psql's \\watch does, once it has a CPU", "[cli]")
{
  TempDir dir;
  double one_weighted_cpu = 0;
  const auto sampled_run  = [&](const std::string& name, int cores) {
    auto scenario                                      = tiny_scenario();
    scenario["hardware"]["cpu"]["cores_per_socket"]    = cores;
    scenario["pgbench"]["clients"]                     = 8;
    scenario["pgbench"]["time"]                        = "1s";
    scenario["run"]["activity_sampling"]["interval"]   = "20ms";
    scenario["run"]["activity_sampling"]["query_cpu"]  = "850us";
    scenario["run"]["activity_sampling"]["client_cpu"] = "250us";
    const std::string json_out                         = dir / (name + ".out.json");
    const Outcome o = walsim({"run", write_scenario(dir, name + ".json", scenario), "--json", json_out}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK(contains(o.out, "pg_stat_activity as a sampler read it ("));
    const auto result = nlohmann::json::parse(read_file(json_out));
    if (cores == 1) one_weighted_cpu = result["wait_event_shares_active"].value("CPU", 0.0);
    return result["pg_stat_activity_samples"];
  };
  const auto two      = sampled_run("two", 2);
  const auto one      = sampled_run("one", 1);
  const double cpu_ms = 1.1; // the sampler's own work per read, at the profile's reference clock
  for (const auto& s : {two, one}) {
    INFO(s.dump());
    // One read per interval plus the query's time: about 45 in a second.
    CHECK(s["samples"].get<int>() >= 40);
    CHECK(s["samples"].get<int>() <= 48);
    CHECK(s["mean_interval_ms"].get<double>() >= 20 + cpu_ms);
    double states = 0, events = 0;
    for (const auto& [name, share] : s["state_shares"].items()) states += share.get<double>();
    for (const auto& [name, share] : s["active_wait_event_shares"].items()) events += share.get<double>();
    CHECK(states == Approx(1.0));
    CHECK(events == Approx(1.0));
    CHECK(s["state_shares"].contains("idle in transaction"));
  }
  // On one CPU the sampler reads while it holds that CPU, so it never finds a backend running
  // there (only one preempted at the end of its time slice), though backends spend a share of
  // their active time on the CPU.
  const double running = one["active_wait_event_shares"].value("CPU", 0.0);
  INFO("time-weighted CPU share " << one_weighted_cpu << ", sampled " << running);
  CHECK(one_weighted_cpu > 0.03);
  CHECK(running < 0.5 * one_weighted_cpu);

  const std::string plain_out = dir / "plain.out.json";
  REQUIRE(walsim({"run", write_scenario(dir, "plain.json", tiny_scenario()), "--json", plain_out}, dir).status == 0);
  CHECK_FALSE(nlohmann::json::parse(read_file(plain_out)).contains("pg_stat_activity_samples"));
}

TEST_CASE("CLI: -P prints pgbench's progress lines with the wall time so far and the time still needed", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const Outcome o        = walsim({"run", path, "-P", "50ms"}, dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  check_mentions(o.err, {"progress: 0.1 s, ", " tps, lat ", " ms stddev ", " (wall ", " s, ETA "});
  const Outcome quiet = walsim({"run", path, "-P", "50ms", "-q"}, dir);
  CHECK_FALSE(contains(quiet.err, "progress:"));
}

TEST_CASE("CLI: a new backend's page faults on shared memory cost CPU, and are counted", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const auto cpu_of      = [&](const std::vector<std::string>& sets) {
    std::vector<std::string> args{"run", path, "--json", dir / "r.json"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const Outcome o = walsim(args, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(read_file(dir / "r.json")).at("cpu");
  };
  const std::vector<std::string> faults = {"hardware.os.page_fault_read=16us", "hardware.os.page_fault_write=10us",
                                           "hardware.os.page_first_touch=4.5us"};
  const std::vector<std::string> none   = {"hardware.os.page_fault_read=0s", "hardware.os.page_fault_write=0s",
                                           "hardware.os.page_first_touch=0s"};
  const auto with                       = cpu_of(faults);
  const auto without                    = cpu_of(none);
  // Two new backends fault in the heap pages, descriptors and WAL pages of their first
  // transactions: several faults each, early in a run.
  CHECK(with.at("page_faults_per_txn").get<double>() > 1);
  CHECK(with.at("page_first_touches_per_txn").get<double>() > 1);
  CHECK(without.at("page_faults_per_txn").get<double>() == 0);
  CHECK(with.at("busy_cpu_us_per_txn").get<double>() > without.at("busy_cpu_us_per_txn").get<double>() + 10);
}

TEST_CASE("CLI: WAL flushes whose completions interrupt a busy CPU are counted", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const auto cpu_of      = [&](const std::string& cost) {
    const Outcome o = walsim({"run", path, "--json", dir / "r.json", "--set", "settings.synchronous_commit=on", "--set",
                              "hardware.os.io_interrupt_cpu=1", "--set", "hardware.os.busy_io_interrupt=" + cost},
                                  dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return nlohmann::json::parse(read_file(dir / "r.json")).at("cpu");
  };
  // Two clients on two CPUs: while one waits for its flush, the other often runs on CPU 1.
  const auto with    = cpu_of("30us");
  const auto without = cpu_of("0s");
  CHECK(with.at("busy_io_interrupts_per_txn").get<double>() > 0.1);
  CHECK(without.at("busy_io_interrupts_per_txn").get<double>() == 0);
  CHECK(with.at("busy_cpu_us_per_txn").get<double>() > without.at("busy_cpu_us_per_txn").get<double>());
}

TEST_CASE("CLI: io_interrupt_cpu is a CPU number or -1", "[cli]")
{
  TempDir dir;
  auto scenario                                  = tiny_scenario();
  scenario["hardware"]["os"]                     = nlohmann::json::object();
  scenario["hardware"]["os"]["io_interrupt_cpu"] = -2;
  const std::string path                         = write_scenario(dir, "tiny.json", scenario);
  check_rejected(dir, {path}, path + ": /hardware/os/io_interrupt_cpu: ");
}

TEST_CASE("CLI: fault_around must be whole pages", "[cli]")
{
  TempDir dir;
  auto scenario                              = tiny_scenario();
  scenario["hardware"]["os"]                 = nlohmann::json::object();
  scenario["hardware"]["os"]["fault_around"] = "6kB";
  const std::string path                     = write_scenario(dir, "tiny.json", scenario);
  check_rejected(dir, {path}, path + ": /hardware/os/fault_around: expected a multiple of 4kB");
}

TEST_CASE("CLI: a WAL device's latency spread and stalls slow its flushes, the same for the same seed", "[cli]")
{
  TempDir dir;
  auto scenario                                       = tiny_scenario();
  scenario["settings"]["synchronous_commit"]          = "on";
  const std::string plain                             = write_scenario(dir, "plain.json", scenario);
  scenario["hardware"]["wal_device"]["stalls"]        = {{"every", "20ms"}, {"duration", "2ms"}};
  scenario["hardware"]["wal_device"]["latency_sigma"] = 0.4;
  const std::string stalled                           = write_scenario(dir, "stalled.json", scenario);
  const auto run = [&](const std::string& path, const std::string& out, const std::string& seed) {
    const Outcome o = walsim({"run", path, "--seed", seed, "--reproducible", "--json", dir / out}, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    return std::make_pair(o.out, nlohmann::json::parse(read_file(dir / out)));
  };
  const auto [plain_out, plain_json] = run(plain, "plain.json.out", "1");
  const auto [out, json]             = run(stalled, "a.json", "1");
  CHECK(plain_json["wal_device"]["stalls"] == 0);
  CHECK_FALSE(contains(plain_out, "stall episodes"));
  // 0.2 s with an episode every 22 ms on average, each holding up the flushes behind it.
  CHECK(json["wal_device"]["stalls"].get<int>() >= 3);
  check_mentions(out, {"WAL device: ", " stall episodes held up commands"});
  const double per_sync = [](const nlohmann::json& j) {
    return j["pg_stat_wal"]["wal_sync_time_ms"].get<double>() / j["pg_stat_wal"]["wal_sync"].get<double>();
  }(json);
  const double plain_per_sync =
      plain_json["pg_stat_wal"]["wal_sync_time_ms"].get<double>() / plain_json["pg_stat_wal"]["wal_sync"].get<double>();
  CHECK(per_sync > 1.2 * plain_per_sync);
  // The spread shows in the percentiles of each fdatasync() call, as a histogram of them would.
  const auto spread = [](const nlohmann::json& j) {
    return j["wal_sync_us"]["p99"].get<double>() / j["wal_sync_us"]["p50"].get<double>();
  };
  CHECK(plain_json["wal_sync_us"]["p50"].get<double>() > 0);
  CHECK(spread(json) > 1.5 * spread(plain_json));
  check_mentions(plain_out, {"WAL sync: fdatasync() took p50 ", " us, p99 "});
  CHECK(read_file(dir / "a.json") == read_file(dir / "a.json")); // written once, atomically
  const auto again = run(stalled, "b.json", "1");
  CHECK(again.first == out);
  CHECK(read_file(dir / "a.json") == read_file(dir / "b.json"));
  CHECK(run(stalled, "c.json", "2").second["pg_stat_wal"] != json["pg_stat_wal"]);

  scenario["hardware"]["wal_device"]["stalls"] = {{"every", "20ms"}};
  const std::string bad                        = write_scenario(dir, "no-duration.json", scenario);
  check_rejected(dir, {bad}, bad + ": /hardware/wal_device/stalls/duration: ");
  scenario["hardware"]["wal_device"]["stalls"]        = {{"every", "20ms"}, {"duration", "2ms"}};
  scenario["hardware"]["wal_device"]["latency_sigma"] = -1;
  const std::string negative                          = write_scenario(dir, "negative.json", scenario);
  check_rejected(dir, {negative}, negative + ": /hardware/wal_device/latency_sigma: expected a number between 0 and 3");
}

TEST_CASE("CLI: commit_delay sleeps only with commit_siblings other backends in a transaction", "[cli]")
{
  TempDir dir;
  const std::string path = write_scenario(dir, "tiny.json", tiny_scenario());
  const auto wal_syncs   = [&](int clients, int siblings, const std::string& delay) {
    const Outcome o = walsim({"run", path, "-c", std::to_string(clients), "--set", "settings.synchronous_commit=on",
                              "--set", "settings.commit_siblings=" + std::to_string(siblings), "--set",
                              "settings.commit_delay=" + delay, "--reproducible", "-q"},
                               dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    const std::string tag = " wal_sync=";
    const auto at         = o.out.find(tag);
    REQUIRE(at != std::string::npos);
    return std::stol(o.out.substr(at + tag.size()));
  };
  // Two clients have at most one other in a transaction: with commit_siblings 2 the delay never
  // runs (the flusher does not count itself), and the run is the one without it. With 1 it runs,
  // and each flush serves more commits.
  CHECK(wal_syncs(2, 2, "2ms") == wal_syncs(2, 2, "0"));
  CHECK(wal_syncs(2, 1, "2ms") < wal_syncs(2, 1, "0"));
}
