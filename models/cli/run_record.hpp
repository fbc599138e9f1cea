/* The figures of one finished run, taken from the JSON document `walsim run --json` writes, and
 * the CSV tables of a sweep (results.csv: one row per run; summary.csv: one row per point). */
#pragma once

#include "models/cli/sweep_plan.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cli {

struct RunRecord {
  /// Parallel to metric_names(); absent when the run's JSON lacks the figure.
  std::vector<std::optional<double>> numbers;
  /// Active-time share of every wait event, as pg_stat_activity sampling shows it.
  std::map<std::string, double> wait_shares;
  /// What the run's pg_stat_activity sampler read (run.activity_sampling), by results.csv column:
  /// sampled_interval_ms, sampled_active_backends, sampled_state.STATE and sampled.EVENT (share of
  /// the active backends' samples). Empty when no sampler ran.
  std::map<std::string, double> sampled;
};

/// The numeric columns of results.csv after the plan's own columns, in order.
const std::vector<std::string>& metric_names();
/// The metrics summary.csv summarises (median, mean, 95% CI) per point.
const std::vector<std::string>& summary_metric_names();

/// Extracts a run's figures; a figure missing from the document is left empty, never an error.
RunRecord read_run_record(const nlohmann::json& run);

/// The value of a metric ("tps", "latency_p95_ms", "wait.IO:WALSync", "sampled.Lock:tuple", ...);
/// nullopt when the run lacks it. A wait event the run never showed has share 0.
std::optional<double> metric_value(const RunRecord& r, const std::string& metric);
/// True when metric names a column of results.csv (wait.* and sampled* columns are always accepted).
bool known_metric(const std::string& metric);

/// Finished runs, by their index in Plan::runs().
using Records = std::map<std::size_t, RunRecord>;

std::string results_csv(const Plan& plan, const Records& records);
std::string summary_csv(const Plan& plan, const Records& records);

/// The values of one metric at one point, over the finished replications, in replication order.
std::vector<double> point_values(const Plan& plan, const Records& records, std::size_t point,
                                 const std::string& metric);

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& text);
/// Numbers as results.csv writes them: up to 10 significant digits, no exponent below 1e15.
std::string format_metric(double v);

} // namespace cli
