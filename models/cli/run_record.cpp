/* Run records and the sweep's CSV tables. */
#include "models/cli/run_record.hpp"

#include "models/cli/stats_tests.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

namespace cli {

namespace {

using Extract = std::function<std::optional<double>(const nlohmann::json&)>;

struct MetricSpec {
  std::string name;
  Extract extract;
};

std::optional<double> number_at(const nlohmann::json& j, const std::string& pointer)
{
  const nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return std::nullopt;
  const auto& v = j.at(p);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

Extract at(const std::string& pointer)
{
  return [pointer](const nlohmann::json& j) { return number_at(j, pointer); };
}

Extract per_transaction(const std::string& pointer)
{
  return [pointer](const nlohmann::json& j) -> std::optional<double> {
    const auto v   = number_at(j, pointer);
    const auto txn = number_at(j, "/pgbench/transactions");
    if (!v || !txn || *txn <= 0) return std::nullopt;
    return *v / *txn;
  };
}

// LWLOCK_STATS lines are an array of {name, shacq, ...}: look the lock up by name.
Extract lock_field(const std::string& lock, const std::string& field)
{
  return [lock, field](const nlohmann::json& j) -> std::optional<double> {
    const auto found = j.find("lwlock_stats");
    if (found == j.end() || !found->is_array()) return std::nullopt;
    for (const auto& line : *found)
      if (line.is_object() && line.value("name", "") == lock) return number_at(line, "/" + field);
    return std::nullopt;
  };
}

std::vector<MetricSpec> make_specs()
{
  std::vector<MetricSpec> specs = {
      {"tps", at("/pgbench/tps")},
      {"transactions", at("/pgbench/transactions")},
      {"latency_avg_ms", at("/pgbench/latency_ms/average")},
      {"latency_stddev_ms", at("/pgbench/latency_ms/stddev")},
      {"latency_p50_ms", at("/pgbench/latency_ms/p50")},
      {"latency_p95_ms", at("/pgbench/latency_ms/p95")},
      {"latency_p99_ms", at("/pgbench/latency_ms/p99")},
      {"wal_records", at("/pg_stat_wal/wal_records")},
      {"wal_fpi", at("/pg_stat_wal/wal_fpi")},
      {"wal_bytes", at("/pg_stat_wal/wal_bytes")},
      {"wal_buffers_full", at("/pg_stat_wal/wal_buffers_full")},
      {"wal_write", at("/pg_stat_wal/wal_write")},
      {"wal_sync", at("/pg_stat_wal/wal_sync")},
      {"wal_write_time_ms", at("/pg_stat_wal/wal_write_time_ms")},
      {"wal_sync_time_ms", at("/pg_stat_wal/wal_sync_time_ms")},
      {"wal_records_per_xact", per_transaction("/pg_stat_wal/wal_records")},
      {"wal_bytes_per_xact", per_transaction("/pg_stat_wal/wal_bytes")},
      {"wal_write_per_xact", per_transaction("/pg_stat_wal/wal_write")},
      {"wal_sync_per_xact", per_transaction("/pg_stat_wal/wal_sync")},
      {"insert_lock_acquire_ms", at("/wal_insert_lock_acquire_time_ms")},
      {"wait_for_insertions_ms", at("/wal_wait_for_insert_to_finish_time_ms")},
      {"wait_for_insertions_calls", at("/wal_wait_for_insert_to_finish_calls")},
  };
  for (const char* lock : {"WALInsertLock", "WALWriteLock", "CLogControlLock", "ProcArrayLock"})
    for (const char* field : {"shacq", "exacq", "blk", "wait_ms"})
      specs.push_back({std::string(lock) + "_" + field, lock_field(lock, field)});
  specs.push_back({"cpu_busy_cores", at("/cpu/busy_cores_avg")});
  specs.push_back({"cpu_us_per_xact", at("/cpu/busy_cpu_us_per_txn")});
  specs.push_back({"cpu_switches_per_xact", at("/cpu/context_switches_per_txn")});
  specs.push_back({"cpu_migrations_per_xact", at("/cpu/migrations_per_txn")});
  specs.push_back({"walwriter_cycles", at("/walwriter/cycles")});
  // The WAL writer's sleeps (one per cycle, plus its fdatasync() calls) and CPU, as /proc counts them.
  specs.push_back(
      {"walwriter_voluntary_switches_per_xact", at("/cpu/switches_per_txn_by_process/walwriter/voluntary")});
  specs.push_back({"walwriter_cpu_us_per_xact", at("/cpu/busy_us_per_txn_by_process/walwriter")});
  specs.push_back({"hint_bits_set", at("/hint_bits/set")});
  specs.push_back({"slru_xact_blks_hit_per_xact", per_transaction("/pg_stat_slru_xact/blks_hit")});
  specs.push_back({"buffer_reads_per_xact", per_transaction("/shared_buffers/reads")});
  specs.push_back({"buffer_writes_per_xact", per_transaction("/shared_buffers/writes")});
  specs.push_back({"buffer_bgwriter_writes_per_xact", per_transaction("/shared_buffers/writes_bgwriter")});
  return specs;
}

const std::vector<MetricSpec>& specs()
{
  static const std::vector<MetricSpec> all = make_specs();
  return all;
}

constexpr const char* kWaitPrefix    = "wait.";
constexpr const char* kSampledPrefix = "sampled";
constexpr const char* kSampledEvent  = "sampled.";
constexpr int kTopWaits              = 3;

bool starts_with(const std::string& text, const char* prefix)
{
  return text.rfind(prefix, 0) == 0;
}

// pg_stat_activity's state names as results.csv column suffixes.
std::string state_column(const std::string& state)
{
  std::string column = "sampled_state.";
  for (char c : state) column += c == ' ' ? '_' : c;
  return column;
}

void read_samples(const nlohmann::json& samples, RunRecord& r)
{
  if (!samples.is_object()) return;
  if (const auto v = number_at(samples, "/mean_interval_ms")) r.sampled["sampled_interval_ms"] = *v;
  if (const auto v = number_at(samples, "/mean_active_backends")) r.sampled["sampled_active_backends"] = *v;
  for (const char* group : {"state_shares", "active_wait_event_shares"}) {
    const auto shares = samples.find(group);
    if (shares == samples.end() || !shares->is_object()) continue;
    for (const auto& [name, share] : shares->items())
      if (share.is_number())
        r.sampled[std::string(group) == "state_shares" ? state_column(name) : kSampledEvent + name] =
            share.get<double>();
  }
}

std::vector<std::pair<std::string, double>> top_waits(const RunRecord& r)
{
  std::vector<std::pair<std::string, double>> sorted(r.wait_shares.begin(), r.wait_shares.end());
  // Ties broken by name so that the table does not depend on map order.
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (sorted.size() > kTopWaits) sorted.resize(kTopWaits);
  return sorted;
}

std::set<std::string> all_wait_events(const Records& records)
{
  std::set<std::string> events;
  for (const auto& [index, r] : records)
    for (const auto& [name, share] : r.wait_shares) events.insert(name);
  return events;
}

std::set<std::string> all_sampled_columns(const Records& records)
{
  std::set<std::string> columns;
  for (const auto& [index, r] : records)
    for (const auto& [column, value] : r.sampled) columns.insert(column);
  return columns;
}

std::string optional_field(const std::optional<double>& v)
{
  return v ? format_metric(*v) : "";
}

std::string join_row(const std::vector<std::string>& fields)
{
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  return line + "\n";
}

std::vector<std::string> point_fields(const Point& p)
{
  std::vector<std::string> fields = {std::to_string(p.index)};
  fields.insert(fields.end(), p.values.begin(), p.values.end());
  return fields;
}

} // namespace

const std::vector<std::string>& metric_names()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& s : specs()) out.push_back(s.name);
    return out;
  }();
  return names;
}

const std::vector<std::string>& summary_metric_names()
{
  static const std::vector<std::string> names = {"tps",
                                                 "latency_avg_ms",
                                                 "latency_p95_ms",
                                                 "latency_p99_ms",
                                                 "wal_records_per_xact",
                                                 "wal_bytes_per_xact",
                                                 "insert_lock_acquire_ms",
                                                 "wait_for_insertions_ms",
                                                 "WALWriteLock_blk",
                                                 "CLogControlLock_blk",
                                                 "cpu_us_per_xact"};
  return names;
}

RunRecord read_run_record(const nlohmann::json& run)
{
  RunRecord r;
  for (const auto& s : specs()) r.numbers.push_back(s.extract(run));
  const auto shares = run.find("wait_event_shares_active");
  if (shares != run.end() && shares->is_object())
    for (const auto& [name, share] : shares->items())
      if (share.is_number()) r.wait_shares[name] = share.get<double>();
  const auto samples = run.find("pg_stat_activity_samples");
  if (samples != run.end()) read_samples(*samples, r);
  return r;
}

bool known_metric(const std::string& metric)
{
  const auto& names = metric_names();
  return starts_with(metric, kWaitPrefix) || starts_with(metric, kSampledPrefix) ||
         std::find(names.begin(), names.end(), metric) != names.end();
}

std::optional<double> metric_value(const RunRecord& r, const std::string& metric)
{
  if (metric.rfind(kWaitPrefix, 0) == 0) {
    const auto found = r.wait_shares.find(metric.substr(std::string(kWaitPrefix).size()));
    return found == r.wait_shares.end() ? 0.0 : found->second;
  }
  if (starts_with(metric, kSampledPrefix)) {
    const auto found = r.sampled.find(metric);
    if (found != r.sampled.end()) return found->second;
    // A sampler that never saw an event saw it 0 times; without a sampler there is no figure.
    if (starts_with(metric, kSampledEvent) && !r.sampled.empty()) return 0.0;
    return std::nullopt;
  }
  const auto& names = metric_names();
  const auto found  = std::find(names.begin(), names.end(), metric);
  if (found == names.end()) return std::nullopt;
  const auto i = static_cast<std::size_t>(found - names.begin());
  return i < r.numbers.size() ? r.numbers[i] : std::nullopt;
}

std::string csv_field(const std::string& text)
{
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string format_metric(double v)
{
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string results_csv(const Plan& plan, const Records& records)
{
  const auto events               = all_wait_events(records);
  std::vector<std::string> header = {"run_id", "point"};
  for (const auto& a : plan.axes()) header.push_back(a.key);
  header.insert(header.end(), {"replication", "seed"});
  header.insert(header.end(), metric_names().begin(), metric_names().end());
  for (int i = 1; i <= kTopWaits; ++i) {
    header.push_back("wait_event_" + std::to_string(i));
    header.push_back("wait_event_" + std::to_string(i) + "_share");
  }
  for (const auto& e : events) header.push_back(kWaitPrefix + e);
  const auto sampled = all_sampled_columns(records);
  header.insert(header.end(), sampled.begin(), sampled.end());

  std::string out = join_row(header);
  for (const auto& [index, r] : records) {
    const PlannedRun& run           = plan.runs().at(index);
    std::vector<std::string> fields = {run.id};
    const auto pf                   = point_fields(plan.points().at(run.point));
    fields.insert(fields.end(), pf.begin(), pf.end());
    fields.push_back(std::to_string(run.replication));
    fields.push_back(std::to_string(run.seed));
    for (const auto& v : r.numbers) fields.push_back(optional_field(v));
    const auto top = top_waits(r);
    for (int i = 0; i < kTopWaits; ++i) {
      const bool has = static_cast<std::size_t>(i) < top.size();
      fields.push_back(has ? top[static_cast<std::size_t>(i)].first : "");
      fields.push_back(has ? format_metric(top[static_cast<std::size_t>(i)].second) : "");
    }
    for (const auto& e : events) fields.push_back(optional_field(metric_value(r, kWaitPrefix + e)));
    for (const auto& c : sampled) fields.push_back(optional_field(metric_value(r, c)));
    out += join_row(fields);
  }
  return out;
}

std::vector<double> point_values(const Plan& plan, const Records& records, std::size_t point, const std::string& metric)
{
  std::vector<double> values;
  for (const auto& [index, r] : records) {
    if (plan.runs().at(index).point != point) continue;
    if (const auto v = metric_value(r, metric)) values.push_back(*v);
  }
  return values;
}

std::string summary_csv(const Plan& plan, const Records& records)
{
  std::vector<std::string> header = {"point"};
  for (const auto& a : plan.axes()) header.push_back(a.key);
  header.push_back("n");
  for (const auto& m : summary_metric_names())
    for (const char* stat : {"_median", "_mean", "_ci_low", "_ci_high"}) header.push_back(m + stat);

  std::string out = join_row(header);
  for (const auto& p : plan.points()) {
    std::vector<std::string> fields = point_fields(p);
    std::size_t n                   = 0;
    for (const auto& [index, r] : records) n += plan.runs().at(index).point == p.index;
    fields.push_back(std::to_string(n));
    for (const auto& m : summary_metric_names()) {
      const auto values = point_values(plan, records, p.index, m);
      if (values.empty()) {
        fields.insert(fields.end(), 4, "");
        continue;
      }
      const Sample s = describe_sample(values);
      fields.insert(fields.end(), {format_metric(s.median), format_metric(s.mean), optional_field(s.ci_low),
                                   optional_field(s.ci_high)});
    }
    out += join_row(fields);
  }
  return out;
}

} // namespace cli
