/* Chart data and gnuplot scripts. */
#include "models/cli/plot_series.hpp"

#include "models/cli/stats_tests.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace cli {

namespace {

std::size_t axis_index(const Plan& plan, const std::string& key)
{
  for (std::size_t a = 0; a < plan.axes().size(); ++a)
    if (plan.axes()[a].key == key) return a;
  std::string keys;
  for (const auto& a : plan.axes()) keys += (keys.empty() ? "" : ", ") + a.key;
  throw PlanError("--x " + key + " is not a varied key of this sweep (varied: " + keys + ")");
}

/// Numeric positions of the axis's values, or nothing when some value is not a number with the
/// same unit as the others.
bool numeric_axis(const Axis& axis, std::vector<double>& xs, std::string& unit)
{
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    double v = 0;
    std::string u;
    if (!split_quantity(axis.values[i], v, u) || (i > 0 && u != unit)) return false;
    unit = u;
    xs.push_back(v);
  }
  return true;
}

std::string series_title(const Plan& plan, const Point& p, std::size_t x_axis)
{
  std::string title;
  for (std::size_t a = 0; a < plan.axes().size(); ++a)
    if (a != x_axis) title += (title.empty() ? "" : " ") + plan.axes()[a].key + "=" + p.values[a];
  return title;
}

/// A gnuplot single-quoted string ('' stands for one quote).
std::string quoted(const std::string& text)
{
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string number(double v)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string y_label(const std::string& metric)
{
  static const std::map<std::string, std::string> labels = {
      {"tps", "transactions per second"},
      {"latency_avg_ms", "latency average (ms)"},
      {"latency_p50_ms", "latency median (ms)"},
      {"latency_p95_ms", "latency 95th percentile (ms)"},
      {"latency_p99_ms", "latency 99th percentile (ms)"},
      {"insert_lock_acquire_ms", "WAL insertion lock acquire time (ms)"},
      {"wait_for_insertions_ms", "WaitXLogInsertionsToFinish time (ms)"},
      {"wal_bytes_per_xact", "WAL bytes per transaction"},
      {"wal_records_per_xact", "WAL records per transaction"},
      {"wal_write_per_xact", "WAL write() calls per transaction"},
      {"wal_sync_per_xact", "WAL syncs per transaction"}};
  const auto found = labels.find(metric);
  if (found != labels.end()) return found->second;
  if (metric.rfind("wait.", 0) == 0) return "share of active time in " + metric.substr(5);
  return metric;
}

std::string plot_command(const Chart& chart, const std::string& data_file)
{
  // Lines between labels would suggest an order that is not there.
  const std::string style =
      chart.categorical ? "yerrorbars pointtype 7 pointsize 1.5 linewidth 2" : "yerrorlines linewidth 2 pointtype 7";
  std::string cmd = "plot ";
  for (std::size_t s = 0; s < chart.series.size(); ++s)
    cmd += std::string(s ? ", \\\n     " : "") + quoted(data_file) + " index " + std::to_string(s) +
           " using 1:2:3:4 with " + style + " title " + quoted(chart.series[s].title);
  return cmd + "\n";
}

} // namespace

Chart make_chart(const Plan& plan, const Records& records, const std::string& metric, const std::string& x_key)
{
  Chart chart;
  chart.metric         = metric;
  chart.x_key          = x_key;
  const std::size_t xa = axis_index(plan, x_key);
  const Axis& axis     = plan.axes()[xa];
  chart.x_labels       = axis.values;
  std::vector<double> xs;
  chart.categorical = !numeric_axis(axis, xs, chart.x_unit);
  if (chart.categorical) {
    xs.clear();
    for (std::size_t i = 0; i < axis.values.size(); ++i) xs.push_back(static_cast<double>(i));
    chart.x_unit.clear();
  } else {
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    chart.log_x         = *lo > 0 && *hi / *lo >= 16;
  }

  std::map<std::string, std::size_t> by_title;
  for (const auto& p : plan.points()) {
    const std::string title = plan.axes().size() > 1 ? series_title(plan, p, xa) : metric;
    if (!by_title.count(title)) {
      by_title[title] = chart.series.size();
      chart.series.push_back({title, {}});
    }
    const auto values = point_values(plan, records, p.index, metric);
    if (values.empty()) continue;
    const Sample s = describe_sample(values);
    const auto x =
        static_cast<std::size_t>(std::find(axis.values.begin(), axis.values.end(), p.values[xa]) - axis.values.begin());
    chart.series[by_title[title]].points.push_back(
        {xs[x], s.n, s.mean, s.ci_low.value_or(s.mean), s.ci_high.value_or(s.mean)});
  }
  // Side by side rather than on top of each other when x is a label.
  if (chart.categorical && chart.series.size() > 1)
    for (std::size_t s = 0; s < chart.series.size(); ++s)
      for (auto& pt : chart.series[s].points)
        pt.x += (static_cast<double>(s) - static_cast<double>(chart.series.size() - 1) / 2) * 0.06;
  for (auto& series : chart.series)
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.x < b.x; });
  return chart;
}

std::string chart_data(const Chart& chart)
{
  std::string out;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    out += (s ? "\n\n" : "") + std::string("# ") + chart.series[s].title + "\n# x mean ci_low ci_high n\n";
    for (const auto& p : chart.series[s].points)
      out += number(p.x) + " " + number(p.mean) + " " + number(p.ci_low) + " " + number(p.ci_high) + " " +
             std::to_string(p.n) + "\n";
    // gnuplot rejects an empty block: a lone comment line keeps the index numbering.
    if (chart.series[s].points.empty()) out += "# no finished run\n";
  }
  return out;
}

std::string gnuplot_script(const Chart& chart, const std::string& title, const std::string& data_file,
                           const std::string& png_file, const std::string& svg_file)
{
  std::string gp = "# walsim plot: " + chart.metric + " against " + chart.x_key +
                   "; points are means over replications, bars their 95% confidence intervals.\n"
                   "set title " +
                   quoted(title) +
                   "\n"
                   "set xlabel " +
                   quoted(chart.x_key + (chart.x_unit.empty() ? "" : " (" + chart.x_unit + ")")) +
                   "\n"
                   "set ylabel " +
                   quoted(y_label(chart.metric)) +
                   "\n"
                   "set grid\nset key top left box opaque\nset yrange [0:*]\nset offsets graph 0.05, graph 0.05, "
                   "graph 0.1, 0\n";
  if (chart.log_x) gp += "set logscale x 2\n";
  if (chart.categorical || chart.x_labels.size() <= 12) {
    gp += "set xtics (";
    for (std::size_t i = 0; i < chart.x_labels.size(); ++i) {
      double v = static_cast<double>(i);
      std::string unit;
      if (!chart.categorical) split_quantity(chart.x_labels[i], v, unit);
      gp += (i ? ", " : "") + quoted(chart.categorical ? chart.x_labels[i] : number(v)) + " " + number(v);
    }
    gp += ")\n";
  }
  const std::string plot = plot_command(chart, data_file);
  gp += "terms = ' ' . GPVAL_TERMINALS . ' '\n"
        "if (strstrt(terms, ' pngcairo ') > 0) {\n"
        "  set terminal pngcairo size 1000,600 font 'sans,11' noenhanced\n"
        "} else {\n"
        "  if (strstrt(terms, ' png ') > 0) { set terminal png size 1000,600 noenhanced }\n"
        "}\n"
        "if (strstrt(terms, ' pngcairo ') > 0 || strstrt(terms, ' png ') > 0) {\n"
        "  set output " +
        quoted(png_file) + "\n  " + plot +
        "  unset output\n"
        "}\n"
        "if (strstrt(terms, ' svg ') > 0) {\n"
        "  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced\n"
        "  set output " +
        quoted(svg_file) + "\n  " + plot +
        "  unset output\n"
        "}\n";
  return gp;
}

} // namespace cli
