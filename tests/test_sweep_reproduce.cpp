/* The reproduction report's command line (scripts/reproduce and walsim reproduce): listing and
 * bad input. The experiment itself is the CTest entry labelled "reproduction". */
#include "test_sweep_harness.hpp"

using sweep_test::Scratch;

namespace {
const std::string kReproduce = std::string(WALSIM_SOURCE_DIR) + "/scripts/reproduce";
}

TEST_CASE("reproduce lists its experiments directly and through walsim reproduce", "[sweep]")
{
  Scratch s;
  const auto direct = s.sh("'" + kReproduce + "' --list");
  INFO(direct);
  CHECK(direct.status == 0);
  // One experiment per line, "ID<tab>TITLE"; other experiments may come before it.
  CHECK((direct.out.rfind("local-pg15\t", 0) == 0 || direct.out.find("\nlocal-pg15\t") != std::string::npos));
  const auto through = s.walsim("reproduce --list");
  INFO(through);
  CHECK(through.status == 0);
  CHECK(through.out == direct.out);
}

TEST_CASE("bad reproduce input is exit status 2 with a message", "[sweep]")
{
  Scratch s;
  const std::string run = "'" + kReproduce + "' --walsim '" + sweep_test::kWalsim + "' --results out ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {run + "--only nope", "unknown experiment 'nope'"},
      {run + "--jobs 0", "--jobs must be at least 1"},
      {run + "--bogus", "unrecognized arguments"},
      {"'" + kReproduce + "' --walsim /nonexistent/walsim --results out", "no walsim binary at /nonexistent/walsim"},
  };
  for (const auto& [command, message] : cases) {
    const auto r = s.sh(command);
    INFO(command << "\n" << r);
    CHECK(r.status == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(s / "out"));
  }
}
