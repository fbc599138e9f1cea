/* End-to-end tests of walsim compare and walsim plot. */
#include "test_sweep_harness.hpp"

using sweep_test::kScenario;
using sweep_test::kShort;
using sweep_test::lines_of;
using sweep_test::read_file;
using sweep_test::Scratch;

namespace {

/// The whitespace-separated words of the table row that starts with `first`.
std::vector<std::string> row_of(const std::string& table, const std::string& first)
{
  for (const auto& line : lines_of(table)) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (!words.empty() && words[0] == first) return words;
  }
  return {};
}

} // namespace

TEST_CASE("compare prints medians ratio difference of means and the Welch p-value", "[sweep]")
{
  Scratch s;
  const auto r = s.walsim("compare '" + kScenario + "'" + kShort +
                          "-c 2 --vary settings.synchronous_commit=on,off --repeat 3 --out cmp");
  INFO(r);
  REQUIRE(r.status == 0);
  for (const char* head : {"median", "mean", "95% CI of mean", "ratio", "diff. of means", "p (Welch)"})
    CHECK(r.out.find(head) != std::string::npos);
  CHECK(r.out.find("seeds 1..3, the same for every variant") != std::string::npos);
  // settings.synchronous_commit  n  median  mean  [lo, hi]  ratio  diff  [lo, hi]  p
  const auto on  = row_of(r.out, "on");
  const auto off = row_of(r.out, "off");
  REQUIRE(on.size() == 10);
  REQUIRE(off.size() == 11);
  CHECK(on[1] == "3");
  CHECK(on[6] == "-");
  // Asynchronous commit does not wait for the WAL flush: clearly faster at 2 clients.
  CHECK(std::stod(off[6]) > 1.2);
  CHECK(std::stod(off[7]) > 0);
  CHECK(std::stod(off[10]) < 0.05);
  CHECK(lines_of(read_file(s / "cmp/results.csv")).size() == 7);
}

TEST_CASE("compare without --out leaves nothing behind", "[sweep]")
{
  Scratch s;
  const auto r = s.sh("TMPDIR='" + s.path() + "' '" + sweep_test::kWalsim + "' compare '" + kScenario + "'" + kShort +
                      "--vary settings.synchronous_commit=on,off --repeat 2 --metric latency_avg_ms");
  INFO(r);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("latency_avg_ms") != std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(s.path()))
    CHECK(e.path().filename().string().find("walsim-compare") == std::string::npos);
}

TEST_CASE("bad compare input is exit status 2", "[sweep]")
{
  Scratch s;
  const std::string sc                                         = "compare '" + kScenario + "'" + kShort;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sc + "--vary settings.synchronous_commit=on", "at least two variants"},
      {sc + "--vary settings.synchronous_commit=on,off --vary pgbench.clients=1,2", "exactly one --vary"},
      {sc + "--vary settings.synchronous_commit=on,off --repeat 1", "--repeat must be at least 2"},
      {sc + "--vary settings.synchronous_commit=on,off --metric tsp", "--metric tsp is not a column"},
      {sc + "--vary settings.synchronous_commit=on,maybe --out out", "point 1"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = s.walsim(args);
    INFO(args << "\n" << r);
    CHECK(r.status == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(s / "out"));
  }
}

TEST_CASE("compare takes a base that is complete only with the varied key, and still checks every point", "[sweep]")
{
  Scratch s;
  const std::string sc = "compare '" + kScenario + "'" + kShort + "-c 2 --set hardware.wal_device.stalls.duration=2ms ";
  const auto r         = s.walsim(sc + "--vary hardware.wal_device.stalls.every=1h,20ms --repeat 2 -q");
  INFO(r);
  REQUIRE(r.status == 0);
  CHECK(row_of(r.out, "20ms").size() == 11);

  const auto bad_point = s.walsim(sc + "--vary hardware.wal_device.stalls.every=1h,0.1ms --repeat 2 --out out -q");
  CHECK(bad_point.status == 2);
  CHECK(bad_point.err.find("point 1 (hardware.wal_device.stalls.every=0.1ms)") != std::string::npos);
  // A varied key that does not complete the base: the base's own problem is reported.
  const auto bad_base = s.walsim(sc + "--vary pgbench.clients=1,2 --repeat 2 --out out -q");
  CHECK(bad_base.status == 2);
  CHECK(bad_base.err.find("/hardware/wal_device/stalls/every: missing required key") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s / "out"));
}

TEST_CASE("plot draws PNG and SVG charts of a sweep with gnuplot", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim("sweep '" + kScenario + "'" + kShort +
                   "--vary pgbench.clients=1,2 --vary settings.synchronous_commit=on,off --repeat 2 --out out -q")
              .status == 0);
  const auto r = s.walsim("plot out");
  INFO(r);
  REQUIRE(r.status == 0);
  const std::string png = read_file(s / "out/plots/tps-vs-pgbench.clients.png");
  REQUIRE(png.size() > 8);
  CHECK(png.substr(1, 3) == "PNG");
  const std::string svg = read_file(s / "out/plots/tps-vs-pgbench.clients.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("settings.synchronous_commit=off") != std::string::npos);
  // Two series of two points, with their means and confidence intervals.
  const std::string data = read_file(s / "out/plots/tps-vs-pgbench.clients.dat");
  CHECK(data.find("# settings.synchronous_commit=on") != std::string::npos);
  CHECK(lines_of(data).size() == 2 * 4 + 2);

  const auto other = s.walsim("plot out --x settings.synchronous_commit --metric wait.IO:WALSync");
  INFO(other);
  CHECK(other.status == 0);
  CHECK(std::filesystem::exists(s / "out/plots/wait.IO_WALSync-vs-settings.synchronous_commit.svg"));
}

TEST_CASE("plot without gnuplot fails with a clear message and bad plot input is exit status 2", "[sweep]")
{
  Scratch s;
  REQUIRE(s.walsim("sweep '" + kScenario + "'" + kShort + "--vary pgbench.clients=1,2 --out out -q").status == 0);
  const auto none = s.sh("PATH=/nonexistent '" + sweep_test::kWalsim + "' plot out");
  INFO(none);
  CHECK(none.status == 1);
  CHECK(none.err.find("gnuplot is not on PATH") != std::string::npos);
  CHECK(std::filesystem::exists(s / "out/plots/tps-vs-pgbench.clients.gp"));

  CHECK(s.walsim("plot out --x pgbench.scale").err.find("not a varied key") != std::string::npos);
  CHECK(s.walsim("plot out --x pgbench.scale").status == 2);
  CHECK(s.walsim("plot out --metric nope").status == 2);
  CHECK(s.walsim("plot .").status == 2);
  CHECK(s.walsim("plot").status == 2);
}
