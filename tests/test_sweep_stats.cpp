/* Tests of the sweep statistics against published values, and of the small text helpers of the
 * sweep commands (CSV fields, numbers, tables, the progress bar). */
#include "models/cli/progress_bar.hpp"
#include "models/cli/run_record.hpp"
#include "models/cli/stats_tests.hpp"
#include "models/cli/text_table.hpp"

#include <catch2/catch.hpp>

#include <vector>

using Catch::Detail::Approx;

TEST_CASE("Student t quantiles match the printed tables", "[sweep]")
{
  // t(0.975, df) from any statistics textbook's table (and R's qt(0.975, df)).
  CHECK(cli::t_quantile_975(1) == Approx(12.7062047).epsilon(1e-8));
  CHECK(cli::t_quantile_975(2) == Approx(4.30265273).epsilon(1e-8));
  CHECK(cli::t_quantile_975(4) == Approx(2.77644511).epsilon(1e-8));
  CHECK(cli::t_quantile_975(9) == Approx(2.26215716).epsilon(1e-8));
  CHECK(cli::t_quantile_975(29) == Approx(2.04522964).epsilon(1e-8));
  CHECK(cli::t_quantile_975(1e9) == Approx(1.95996398).epsilon(1e-7));
}

TEST_CASE("median mean and confidence interval of a sample", "[sweep]")
{
  const cli::Sample s = cli::describe_sample({5, 1, 4, 2, 3});
  CHECK(s.n == 5);
  CHECK(s.median == 3);
  CHECK(s.mean == 3);
  CHECK(s.stddev == Approx(1.5811388300841898));
  // Half width t(0.975, 4) * s / sqrt(5), by Python's statistics module and the table value.
  REQUIRE(s.ci_low);
  CHECK(*s.ci_low == Approx(3 - 1.9632431614775607));
  CHECK(*s.ci_high == Approx(3 + 1.9632431614775607));

  CHECK(cli::median({4, 1, 3, 2}) == 2.5);
  const cli::Sample one = cli::describe_sample({7});
  CHECK(one.median == 7);
  CHECK_FALSE(one.ci_low);
  CHECK_THROWS_AS(cli::describe_sample({}), std::invalid_argument);
}

TEST_CASE("Welch t-test reproduces R's sleep data example", "[sweep]")
{
  // R: t.test(extra ~ group, data = sleep) -> t = -1.8608, df = 17.776, p-value = 0.07939,
  // 95 percent confidence interval -3.3654832 0.2054832 (group 1 - group 2).
  const std::vector<double> group1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  const std::vector<double> group2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
  const cli::WelchTest w           = cli::welch_test(group1, group2);
  CHECK(w.difference == Approx(1.58));
  CHECK(w.t == Approx(1.860813467486853));
  CHECK(w.df == Approx(17.776473516178488));
  CHECK(w.p_value == Approx(0.07939).epsilon(1e-4));
  CHECK(w.ci_low == Approx(-0.2054832).epsilon(1e-6));
  CHECK(w.ci_high == Approx(3.3654832).epsilon(1e-6));
}

TEST_CASE("Welch t-test of identical replications is exact", "[sweep]")
{
  const cli::WelchTest same = cli::welch_test({5, 5, 5}, {5, 5});
  CHECK(same.p_value == 1);
  CHECK(same.difference == 0);
  const cli::WelchTest shifted = cli::welch_test({5, 5, 5}, {6, 6});
  CHECK(shifted.p_value == 0);
  CHECK(shifted.ci_low == 1);
  CHECK(shifted.ci_high == 1);
  CHECK_THROWS_AS(cli::welch_test({1}, {1, 2}), std::invalid_argument);
}

TEST_CASE("CSV fields are quoted only when they must be", "[sweep]")
{
  CHECK(cli::csv_field("LWLock:WALWrite") == "LWLock:WALWrite");
  CHECK(cli::csv_field("a,b") == "\"a,b\"");
  CHECK(cli::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(cli::format_metric(7407) == "7407");
  CHECK(cli::format_metric(77794264) == "77794264");
  CHECK(cli::format_metric(0.5819079720633621) == "0.5819079721");
  CHECK(cli::format_metric(1e20) == "1e+20");
}

TEST_CASE("text tables align their columns", "[sweep]")
{
  const std::string t = cli::text_table({{"variant", "tps"}, {"on", "1265.4"}, {"off", "17063.1"}});
  CHECK(t == "variant      tps\n"
             "on        1265.4\n"
             "off      17063.1\n");
  CHECK(cli::format_figure(12345.67) == "12345.7");
  CHECK(cli::format_figure(0.0123456) == "0.0123");
  CHECK(cli::format_signed(412.3) == "+412.30");
  CHECK(cli::format_signed(-2.5) == "-2.500");
  CHECK(cli::format_p(0.07939) == "0.0794");
  CHECK(cli::format_p(4.6e-6) == "4.6e-06");
}

TEST_CASE("the progress bar shows runs done elapsed time and ETA", "[sweep]")
{
  CHECK(cli::ProgressBar::render(12, 40, 0, 12, 40) ==
        "[=========>                    ] 12/40 runs, elapsed 0:12, ETA 0:40");
  CHECK(cli::ProgressBar::render(0, 4, 0, 0, -1) ==
        "[>                             ] 0/4 runs, elapsed 0:00, ETA --:--");
  CHECK(cli::ProgressBar::render(4, 4, 1, 3725, 0) ==
        "[==============================] 4/4 runs, 1 failed, elapsed 1:02:05, ETA 0:00");
}

TEST_CASE("run records read the figures of walsim run's JSON and tolerate missing ones", "[sweep]")
{
  const auto run         = nlohmann::json::parse(R"({
    "pgbench": {"tps": 100.5, "transactions": 200, "latency_ms": {"average": 2.0}},
    "pg_stat_wal": {"wal_records": 1200, "wal_bytes": 240000, "wal_write": 50, "wal_sync": 30, "wal_sync_time_ms": 4.5},
    "pg_stat_slru_xact": {"blks_hit": 700},
    "lwlock_stats": [{"name": "CLogControlLock", "shacq": 10, "exacq": 5, "blk": 2, "wait_ms": 0.5}],
    "wait_event_shares_active": {"CPU": 0.6, "LWLock:WALWrite": 0.3, "IO:WALSync": 0.1}})");
  const cli::RunRecord r = cli::read_run_record(run);
  CHECK(cli::metric_value(r, "tps") == 100.5);
  CHECK(cli::metric_value(r, "wal_records_per_xact") == 6.0);
  CHECK(cli::metric_value(r, "wal_bytes_per_xact") == 1200.0);
  CHECK(cli::metric_value(r, "wal_write_per_xact") == 0.25);
  CHECK(cli::metric_value(r, "wal_sync_per_xact") == 0.15);
  CHECK(cli::metric_value(r, "wal_sync_time_ms") == 4.5);
  CHECK_FALSE(cli::metric_value(r, "wal_write_time_ms"));
  CHECK(cli::metric_value(r, "slru_xact_blks_hit_per_xact") == 3.5);
  CHECK(cli::metric_value(r, "CLogControlLock_blk") == 2.0);
  CHECK(cli::metric_value(r, "wait.LWLock:WALWrite") == 0.3);
  CHECK(cli::metric_value(r, "wait.Lock:tuple") == 0.0);
  CHECK_FALSE(cli::metric_value(r, "latency_p99_ms"));
  CHECK_FALSE(cli::metric_value(r, "WALWriteLock_blk"));
  CHECK(cli::known_metric("insert_lock_acquire_ms"));
  CHECK_FALSE(cli::known_metric("tsp"));
  // Without a pg_stat_activity sampler there are no sampled figures, not zeros.
  CHECK_FALSE(cli::metric_value(r, "sampled.Lock:tuple"));
  CHECK_FALSE(cli::metric_value(r, "sampled_state.idle"));
}

TEST_CASE("run records read what a run's pg_stat_activity sampler saw", "[sweep]")
{
  const auto run         = nlohmann::json::parse(R"({
    "pgbench": {"tps": 100.5, "transactions": 200},
    "pg_stat_activity_samples": {"samples": 50, "mean_interval_ms": 21.5, "mean_active_backends": 1.5,
      "state_shares": {"active": 0.25, "idle in transaction": 0.6, "idle": 0.15},
      "active_wait_event_shares": {"Lock:transactionid": 0.7, "CPU": 0.3}}})");
  const cli::RunRecord r = cli::read_run_record(run);
  CHECK(cli::metric_value(r, "sampled_interval_ms") == 21.5);
  CHECK(cli::metric_value(r, "sampled_active_backends") == 1.5);
  CHECK(cli::metric_value(r, "sampled_state.idle_in_transaction") == 0.6);
  CHECK(cli::metric_value(r, "sampled.Lock:transactionid") == 0.7);
  CHECK(cli::metric_value(r, "sampled.Lock:tuple") == 0.0);
  CHECK(cli::known_metric("sampled.Lock:tuple"));
  CHECK(r.sampled.size() == 7);
}
