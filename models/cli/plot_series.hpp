/* What walsim plot draws: one metric against one varied key, one line per combination of the
 * other varied keys, each point the mean over replications with its 95% confidence interval;
 * and the gnuplot script that draws it as PNG and SVG. */
#pragma once

#include "models/cli/run_record.hpp"
#include "models/cli/sweep_plan.hpp"

#include <string>
#include <vector>

namespace cli {

struct SeriesPoint {
  double x       = 0; // the value, or its position when the key is not numeric
  std::size_t n  = 0;
  double mean    = 0;
  double ci_low  = 0; // the mean itself when n < 2
  double ci_high = 0;
};

struct Series {
  std::string title; // "settings.synchronous_commit=off", or the metric when nothing else varies
  std::vector<SeriesPoint> points;
};

struct Chart {
  std::string metric;
  std::string x_key;
  std::string x_unit;                // the values' common unit ("ms"), empty when none
  bool categorical = false;          // x values are labels, drawn at 0, 1, 2, ...
  std::vector<std::string> x_labels; // the axis's values, in plan order
  bool log_x = false;                // numeric, positive and spanning 16x or more
  std::vector<Series> series;
};

/// Throws PlanError when x_key is not a varied key.
Chart make_chart(const Plan& plan, const Records& records, const std::string& metric, const std::string& x_key);

/// The data file: one block per series (gnuplot "index"), columns x mean ci_low ci_high n.
std::string chart_data(const Chart& chart);

/// A gnuplot script writing png_file (pngcairo, else png) and svg_file from data_file; a
/// terminal this gnuplot lacks is skipped.
std::string gnuplot_script(const Chart& chart, const std::string& title, const std::string& data_file,
                           const std::string& png_file, const std::string& svg_file);

} // namespace cli
