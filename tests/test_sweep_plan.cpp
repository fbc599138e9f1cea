/* Tests of sweep plans: --vary lists and ranges, the cross product, run names and seeds. */
#include "models/cli/sweep_plan.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using cli::Axis;
using cli::parse_vary;
using cli::Plan;
using cli::PlanError;
using Values = std::vector<std::string>;

TEST_CASE("vary takes a plain list of values with or without units", "[sweep]")
{
  const Axis a = parse_vary("settings.wal_writer_delay=10ms,200ms,1s");
  CHECK(a.key == "settings.wal_writer_delay");
  CHECK(a.values == Values{"10ms", "200ms", "1s"});
  CHECK(parse_vary("policies.walwriter_wakeup=2011,2016").values == Values{"2011", "2016"});
  CHECK(parse_vary("settings.synchronous_commit=on").values == Values{"on"});
}

TEST_CASE("geometric ranges give powers up to the end", "[sweep]")
{
  CHECK(parse_vary("settings.NUM_XLOGINSERT_LOCKS=1..128:x2").values ==
        Values{"1", "2", "4", "8", "16", "32", "64", "128"});
  // The end is an upper bound, not a value that must be hit.
  CHECK(cli::expand_range("1..100:x2") == Values{"1", "2", "4", "8", "16", "32", "64"});
  CHECK(cli::expand_range("100ms..800ms:x2") == Values{"100ms", "200ms", "400ms", "800ms"});
  CHECK(cli::expand_range("1..3:x1.5") == Values{"1", "1.5", "2.25"});
}

TEST_CASE("arithmetic ranges step from the start to the end without drifting", "[sweep]")
{
  CHECK(cli::expand_range("10..50:+10") == Values{"10", "20", "30", "40", "50"});
  CHECK(cli::expand_range("0.1..0.5:+0.1") == Values{"0.1", "0.2", "0.3", "0.4", "0.5"});
  CHECK(cli::expand_range("100us..300us:+100us") == Values{"100us", "200us", "300us"});
  CHECK(cli::expand_range("5..5:+1") == Values{"5"});
}

TEST_CASE("lists and ranges mix in one vary", "[sweep]")
{
  CHECK(parse_vary("pgbench.clients=1,2..8:x2,12").values == Values{"1", "2", "4", "8", "12"});
}

TEST_CASE("bad vary input is an error that says what was expected", "[sweep]")
{
  auto message = [](const std::string& spec) {
    try {
      parse_vary(spec);
    } catch (const PlanError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("pgbench.clients"), Catch::Contains("expected KEY=V1,V2"));
  CHECK_THAT(message("=1,2"), Catch::Contains("expected KEY=V1,V2"));
  CHECK_THAT(message("pgbench..clients=1"), Catch::Contains("empty part"));
  CHECK_THAT(message("pgbench.clients=1,,2"), Catch::Contains("empty value"));
  CHECK_THAT(message("pgbench.clients="), Catch::Contains("empty value"));
  CHECK_THAT(message("pgbench.clients=1,2,1"), Catch::Contains("given twice"));
  CHECK_THAT(message("pgbench.clients=1..8"), Catch::Contains("expected A..B:xF"));
  CHECK_THAT(message("pgbench.clients=1..8:*2"), Catch::Contains("expected 'x' (factor) or '+' (step)"));
  CHECK_THAT(message("pgbench.clients=a..8:x2"), Catch::Contains("start \"a\" is not a number"));
  CHECK_THAT(message("pgbench.clients=8..1:x2"), Catch::Contains("greater than the end"));
  CHECK_THAT(message("pgbench.clients=1..8:x1"), Catch::Contains("greater than 1"));
  CHECK_THAT(message("pgbench.clients=0..8:x2"), Catch::Contains("start above 0"));
  CHECK_THAT(message("pgbench.clients=1..8:+0"), Catch::Contains("greater than 0"));
  CHECK_THAT(message("pgbench.clients=1..8:+-1"), Catch::Contains("greater than 0"));
  CHECK_THAT(message("x=1ms..8s:x2"), Catch::Contains("different units"));
  CHECK_THAT(message("x=1ms..8ms:x2ms"), Catch::Contains("takes no unit"));
  CHECK_THAT(message("x=1ms..8ms:+1"), Catch::Contains("unit of the bounds"));
  CHECK_THAT(message("x=1..1e9:+1"), Catch::Contains("more than 10000 values"));
  CHECK_THAT(message("run.seed=1,2"), Catch::Contains("use --seed and --repeat"));
}

TEST_CASE("the plan is the cross product with the first vary outermost", "[sweep]")
{
  const Plan plan({parse_vary("a=1,2"), parse_vary("b=x,y,z")}, 1, 7);
  REQUIRE(plan.points().size() == 6);
  CHECK(plan.points()[0].values == Values{"1", "x"});
  CHECK(plan.points()[1].values == Values{"1", "y"});
  CHECK(plan.points()[3].values == Values{"2", "x"});
  CHECK(plan.points()[5].values == Values{"2", "z"});
  CHECK(plan.assignments(plan.points()[4]) == Values{"a=2", "b=y"});
  CHECK(plan.describe(plan.points()[4]) == "a=2 b=y");
}

TEST_CASE("replication r uses seed base plus r at every point and runs are replication-major", "[sweep]")
{
  const Plan plan({parse_vary("a=1,2,3")}, 3, 10);
  REQUIRE(plan.runs().size() == 9);
  for (const auto& run : plan.runs()) CHECK(run.seed == 10 + static_cast<std::uint64_t>(run.replication));
  CHECK(plan.runs()[0].id == "p000-r00");
  CHECK(plan.runs()[2].id == "p002-r00");
  CHECK(plan.runs()[3].id == "p000-r01");
  CHECK(plan.runs()[8].id == "p002-r02");
}

TEST_CASE("bad plans are errors", "[sweep]")
{
  CHECK_THROWS_WITH(Plan({}, 1, 1), Catch::Contains("nothing to vary"));
  CHECK_THROWS_WITH(Plan({parse_vary("a=1")}, 0, 1), Catch::Contains("--repeat must be at least 1"));
  CHECK_THROWS_WITH(Plan({parse_vary("a=1"), parse_vary("a=2")}, 1, 1), Catch::Contains("given twice"));
  CHECK_THROWS_WITH(Plan({parse_vary("a=1")}, 3, 9223372036854775806ULL), Catch::Contains("beyond the largest seed"));
  CHECK_NOTHROW(Plan({parse_vary("a=1")}, 2, 9223372036854775806ULL));
}

TEST_CASE("a plan survives its manifest form", "[sweep]")
{
  const Plan plan({parse_vary("a=1..4:x2"), parse_vary("b=on,off")}, 2, 5);
  const Plan back = Plan::from_json(nlohmann::json::parse(plan.to_json().dump()));
  CHECK(back.to_json() == plan.to_json());
  CHECK_THROWS_AS(Plan::from_json(nlohmann::json::parse(R"({"vary": 3})")), PlanError);
}
