/* End-to-end tests of walsim sweep: the folder it writes, resuming, failures, interruptions, bad
 * input, GNU parallel and merge. Each runs the walsim binary on tiny simulations. */
#include "test_sweep_harness.hpp"

#include <nlohmann/json.hpp>

using sweep_test::count_files;
using sweep_test::kScenario;
using sweep_test::kShort;
using sweep_test::kWalsim;
using sweep_test::lines_of;
using sweep_test::read_file;
using sweep_test::Scratch;
using sweep_test::split_csv_line;

namespace {

/// 2 points x 2 replications into DIR, each run `time` of simulated time.
std::string small_sweep(const std::string& dir, const std::string& extra = "", const std::string& time = "0.2s")
{
  return "sweep '" + kScenario + "' -T " + time + " --set run.warmup=0s --vary pgbench.clients=1,2 --repeat 2 --out " +
         dir + " " + extra;
}

/// A worker that runs walsim, except for the runs whose arguments contain `match`, where it runs
/// `action` (a line of sh) instead.
std::string wrapper(const Scratch& s, const std::string& match, const std::string& action)
{
  const std::string path = s / "worker.sh";
  sweep_test::write_file(path, "#!/bin/sh\ncase \" $* \" in *\"" + match + "\"*) " + action + ";; esac\nexec '" +
                                   kWalsim + "' \"$@\"\n");
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return "WALSIM_SWEEP_WORKER='" + path + "' ";
}

std::size_t column(const std::vector<std::string>& header, const std::string& name)
{
  const auto found = std::find(header.begin(), header.end(), name);
  REQUIRE(found != header.end());
  return static_cast<std::size_t>(found - header.begin());
}

} // namespace

TEST_CASE("sweep writes one row per run a summary per point a manifest and the run files", "[sweep]")
{
  Scratch s;
  const auto r = s.walsim(small_sweep("out"));
  INFO(r);
  REQUIRE(r.status == 0);
  const auto rows = lines_of(read_file(s / "out/results.csv"));
  REQUIRE(rows.size() == 5);
  const auto header = split_csv_line(rows[0]);
  for (const char* name :
       {"run_id", "pgbench.clients", "replication", "seed", "tps", "latency_p95_ms", "wal_records", "wal_bytes",
        "wal_fpi", "wal_sync", "insert_lock_acquire_ms", "wait_for_insertions_ms", "CLogControlLock_shacq",
        "CLogControlLock_exacq", "CLogControlLock_blk", "wait_event_1", "wait_event_1_share"})
    CHECK(column(header, name) < header.size());
  // Replication-major rows; replication r has seed 1 + r (the scenario's seed is 1).
  const auto seed = column(header, "seed");
  const auto c    = column(header, "pgbench.clients");
  CHECK(split_csv_line(rows[1])[c] == "1");
  CHECK(split_csv_line(rows[2])[c] == "2");
  CHECK(split_csv_line(rows[1])[seed] == "1");
  CHECK(split_csv_line(rows[2])[seed] == "1");
  CHECK(split_csv_line(rows[3])[seed] == "2");

  const auto summary = lines_of(read_file(s / "out/summary.csv"));
  REQUIRE(summary.size() == 3);
  const auto sh = split_csv_line(summary[0]);
  for (const char* name : {"n", "tps_median", "tps_mean", "tps_ci_low", "tps_ci_high"})
    CHECK(column(sh, name) < sh.size());
  CHECK(split_csv_line(summary[1])[column(sh, "n")] == "2");
  const double lo = std::stod(split_csv_line(summary[2])[column(sh, "tps_ci_low")]);
  const double hi = std::stod(split_csv_line(summary[2])[column(sh, "tps_ci_high")]);
  const double md = std::stod(split_csv_line(summary[2])[column(sh, "tps_mean")]);
  CHECK(lo <= md);
  CHECK(md <= hi);

  const auto manifest = nlohmann::json::parse(read_file(s / "out/manifest.json"));
  CHECK(manifest.at("plan").at("runs") == 4);
  CHECK(manifest.at("plan").at("seeds") == nlohmann::json({1, 2}));
  CHECK(manifest.at("command_line").get<std::string>().find("--vary pgbench.clients=1,2") != std::string::npos);
  CHECK(manifest.at("/scenario/document/pgbench/time"_json_pointer) == "0.2s");
  CHECK(manifest.at("/scenario/resolved"_json_pointer).is_object());
  CHECK(count_files(s / "out/runs", ".json") == 4);
  CHECK(count_files(s / "out/runs", ".log") == 4);
  // Not a terminal: no progress bar.
  CHECK(r.err.find('\r') == std::string::npos);
}

TEST_CASE("sweep resumes: a rerun runs nothing and a lost or broken run is redone identically", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim(small_sweep("out")).status == 0);
  const std::string first = read_file(s / "out/results.csv");
  const std::string kept  = read_file(s / "out/runs/p001-r00.json");

  const auto again = s.walsim(small_sweep("out"));
  INFO(again);
  CHECK(again.status == 0);
  CHECK(again.err.find("4 done, nothing to run") != std::string::npos);

  std::filesystem::remove(s / "out/runs/p000-r01.json");
  sweep_test::write_file(s / "out/runs/p001-r01.json", "{\"pgbench\": {\"tps\": 1");
  const auto redo = s.walsim(small_sweep("out"));
  INFO(redo);
  CHECK(redo.status == 0);
  CHECK(redo.err.find("p001-r01.json is incomplete") != std::string::npos);
  CHECK(redo.err.find("2 done, 2 to run") != std::string::npos);
  CHECK(read_file(s / "out/results.csv") == first);
  CHECK(read_file(s / "out/runs/p001-r00.json") == kept);
}

TEST_CASE("sweep refuses a folder that holds another sweep or other files", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim(small_sweep("out")).status == 0);
  const auto longer = s.walsim(small_sweep("out", "", "0.3s"));
  INFO(longer);
  CHECK(longer.status == 2);
  CHECK(longer.err.find("holds a different sweep: the scenario differs: /pgbench/time") != std::string::npos);
  const auto other = s.walsim("sweep '" + kScenario + "'" + kShort + "--vary pgbench.clients=1,4 --repeat 2 --out out");
  INFO(other);
  CHECK(other.status == 2);
  CHECK(other.err.find("the plan differs") != std::string::npos);

  std::filesystem::create_directory(s / "busy");
  sweep_test::write_file(s / "busy/notes.txt", "mine");
  const auto busy = s.walsim(small_sweep("busy"));
  CHECK(busy.status == 2);
  CHECK(busy.err.find("is not empty and holds no sweep") != std::string::npos);
  CHECK(read_file(s / "busy/notes.txt") == "mine");
}

TEST_CASE("sweep grows in place when only the replications increase", "[sweep]")
{
  Scratch s;
  const std::string base = "sweep '" + kScenario + "'" + kShort + "--vary pgbench.clients=1,2 --out out --repeat ";
  REQUIRE(s.walsim(base + "1").status == 0);
  const std::string kept = read_file(s / "out/runs/p000-r00.json");
  const auto more        = s.walsim(base + "2");
  INFO(more);
  REQUIRE(more.status == 0);
  CHECK(more.err.find("2 done, 2 to run") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 5);
  CHECK(read_file(s / "out/runs/p000-r00.json") == kept);
  CHECK(nlohmann::json::parse(read_file(s / "out/manifest.json")).at("/plan/repeat"_json_pointer) == 2);
  CHECK(s.walsim(base + "1").status == 2);
}

TEST_CASE("bad sweep input is exit status 2 with a message and leaves no folder", "[sweep]")
{
  Scratch s;
  const std::string sc                                         = "sweep '" + kScenario + "'" + kShort;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sc + "--vary pgbench.clients --out out", "expected KEY=V1,V2"},
      {sc + "--vary pgbench.clients=8..1:x2 --out out", "greater than the end"},
      {sc + "--vary pgbench.clients=1,2,1 --out out", "given twice"},
      {sc + "--vary run.seed=1,2 --out out", "use --seed and --repeat"},
      {sc + "--vary pgbench.clients=1,abc --out out", "point 1 (pgbench.clients=abc) is not a valid scenario"},
      {sc + "--vary pgbench.clinets=1,2 --out out", "pgbench.clinets"},
      {sc + "--vary pgbench.clients=1,2", "--out DIR is required"},
      {sc + "--out out", "nothing to vary"},
      {sc + "--vary pgbench.clients=1 --jobs 0 --out out", "--jobs must be at least 1"},
      {sc + "--vary pgbench.clients=1 --repeat 0 --out out", "--repeat must be at least 1"},
      {sc + "--vary pgbench.clients=1 --shard 2/2 --out out", "expected K/N"},
      {sc + "--vary pgbench.clients=1 --emit-jobs nowhere/jobs.txt --out out", "does not exist"},
      {sc + "--vary pgbench.clients=1 --bogus --out out", "unrecognised option"},
      {"sweep missing.json --vary pgbench.clients=1 --out out", "missing.json"},
      {"sweep --vary pgbench.clients=1 --out out", "no scenario file given"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = s.walsim(args);
    INFO(args << "\n" << r);
    CHECK(r.status == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(s / "out"));
  }
}

TEST_CASE("a failing worker is reported with its point and seed and the rest finish", "[sweep]")
{
  Scratch s;
  const std::string worker = wrapper(s, "pgbench.clients=2 --seed 2 ", "echo simulated crash >&2; exit 3");
  const auto r             = s.sh(worker + "'" + kWalsim + "' " + small_sweep("out"));
  INFO(r);
  CHECK(r.status == 1);
  CHECK(r.err.find("run p001-r01 (pgbench.clients=2, seed 2) failed: exit status 3") != std::string::npos);
  CHECK(r.err.find("| simulated crash") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 4);

  const auto retry = s.walsim(small_sweep("out"));
  INFO(retry);
  CHECK(retry.status == 0);
  CHECK(retry.err.find("3 done, 1 to run") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 5);
}

TEST_CASE("a run made by another walsim build is not the sweep's: it fails, and a rerun redoes it", "[sweep]")
{
  Scratch s;
  // As if walsim were rebuilt from other code while the sweep ran: this run's file names
  // another version.
  const std::string other =
      "sed -i 's/\"walsim\": \"[^\"]*\"/\"walsim\": \"0.0.0 (other-build)\"/' out/runs/p000-r01.json";
  const std::string worker =
      wrapper(s, "pgbench.clients=1 --seed 2 ", "'" + kWalsim + "' \"$@\" && " + other + " && exit 0");
  const auto r = s.sh(worker + "'" + kWalsim + "' " + small_sweep("out"));
  INFO(r);
  CHECK(r.status == 1);
  CHECK(r.err.find("run p000-r01 (pgbench.clients=1, seed 2) failed: its result file was made by walsim 0.0.0 "
                   "(other-build), not by this sweep's walsim") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 4);

  const auto retry = s.walsim(small_sweep("out"));
  INFO(retry);
  CHECK(retry.status == 0);
  CHECK(retry.err.find("p000-r01.json is incomplete, from another seed or from another walsim build") !=
        std::string::npos);
  CHECK(retry.err.find("3 done, 1 to run") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 5);
}

TEST_CASE("an interrupted sweep keeps its finished runs and resumes", "[sweep]")
{
  Scratch s;
  // With one worker the replication-0 runs finish first; the first seed-2 run interrupts.
  const std::string worker = wrapper(s, "--seed 2 ", "kill -INT $PPID; exec sleep 30");
  const auto r             = s.sh(worker + "'" + kWalsim + "' " + small_sweep("out", "--jobs 1"));
  INFO(r);
  CHECK(r.status == 130);
  CHECK(r.err.find("interrupted; 2 of 4 runs are done") != std::string::npos);
  CHECK(r.err.find("failed") == std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 3);
  CHECK(count_files(s / "out/runs", ".json") == 2);

  const auto resumed = s.walsim(small_sweep("out"));
  INFO(resumed);
  CHECK(resumed.status == 0);
  CHECK(resumed.err.find("2 done, 2 to run") != std::string::npos);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 5);
}

TEST_CASE("a killed sweep leaves complete files only and resumes", "[sweep]")
{
  Scratch s;
  const std::string worker = wrapper(s, "--seed 2 ", "kill -KILL $PPID; exit 1");
  const auto r             = s.sh(worker + "'" + kWalsim + "' " + small_sweep("out", "--jobs 1"));
  INFO(r);
  CHECK(r.status == 128 + 9);
  // results.csv is rewritten after every finished run, so it has the two that finished.
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 3);
  for (const auto& e : std::filesystem::recursive_directory_iterator(s / "out"))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
  CHECK(count_files(s / "out/runs", ".json") == 2);
  const auto resumed = s.walsim(small_sweep("out"));
  INFO(resumed);
  CHECK(resumed.status == 0);
  CHECK(lines_of(read_file(s / "out/results.csv")).size() == 5);
}

TEST_CASE("emitted jobs run by GNU parallel give the bytes of a local sweep", "[sweep]")
{
  Scratch s;
  REQUIRE_FALSE(s.sh("command -v parallel").out.empty()); // Debian package "parallel"
  const auto emit = s.walsim(small_sweep("remote", "--emit-jobs jobs.txt"));
  INFO(emit);
  REQUIRE(emit.status == 0);
  const auto jobs = lines_of(read_file(s / "jobs.txt"));
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].find(" run ") != std::string::npos);
  CHECK(jobs[0].find("--seed 1") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s / "remote/results.csv.tmp"));

  const auto par = s.sh("parallel --will-cite -j 2 < jobs.txt");
  INFO(par);
  REQUIRE(par.status == 0);
  const auto collect = s.walsim(small_sweep("remote"));
  INFO(collect);
  REQUIRE(collect.status == 0);
  CHECK(collect.err.find("4 done, nothing to run") != std::string::npos);

  REQUIRE(s.walsim(small_sweep("local")).status == 0);
  CHECK(read_file(s / "remote/results.csv") == read_file(s / "local/results.csv"));
  CHECK(read_file(s / "remote/summary.csv") == read_file(s / "local/summary.csv"));
  // Nothing left to emit once everything is done.
  const auto none = s.walsim(small_sweep("remote", "--emit-jobs again.txt"));
  CHECK(none.err.find("every run is already done") != std::string::npos);
}

TEST_CASE("merge joins shards into the folder a single sweep writes", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim(small_sweep("a", "--shard 0/2")).status == 0);
  REQUIRE(s.walsim(small_sweep("b", "--shard 1/2")).status == 0);
  CHECK(count_files(s / "a/runs", ".json") == 2);
  const auto merged = s.walsim("merge a b --out all");
  INFO(merged);
  REQUIRE(merged.status == 0);
  CHECK(merged.err.find("4 of 4 runs from 2 folders") != std::string::npos);
  REQUIRE(s.walsim(small_sweep("whole")).status == 0);
  CHECK(read_file(s / "all/results.csv") == read_file(s / "whole/results.csv"));
  CHECK(read_file(s / "all/summary.csv") == read_file(s / "whole/summary.csv"));

  // Into one of the inputs, too.
  REQUIRE(s.walsim("merge a b --out a").status == 0);
  CHECK(read_file(s / "a/results.csv") == read_file(s / "whole/results.csv"));
}

TEST_CASE("merge refuses folders of different sweeps and folders that are not sweeps", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim(small_sweep("a", "--shard 0/2")).status == 0);
  REQUIRE(s.walsim(small_sweep("b", "--shard 1/2", "0.3s")).status == 0);
  const auto mixed = s.walsim("merge a b --out all");
  INFO(mixed);
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("is not the same sweep") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s / "all"));
  std::filesystem::create_directory(s / "empty");
  const auto plain = s.walsim("merge a empty --out all");
  CHECK(plain.status == 2);
  CHECK(plain.err.find("not a sweep folder") != std::string::npos);
  CHECK(s.walsim("merge a").status == 2);
}
