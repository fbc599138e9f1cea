/* walsim compare: variants of one scenario key, replicated, with the statistics the
 * pgsql-hackers threads report (median TPS, ratio, difference of means, Welch's p-value). */
#include "models/cli/cli.hpp"
#include "models/cli/stats_tests.hpp"
#include "models/cli/sweep_args.hpp"
#include "models/cli/text_table.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace po = boost::program_options;

namespace cli {

namespace {

const char* kCompareUsage =
    "usage: walsim compare SCENARIO.json --vary KEY=A,B[,C...] [--repeat N] [--jobs N] [--out DIR]\n"
    "\n"
    "Runs each variant N times (replication r with seed base+r for every variant: common random\n"
    "numbers) and prints, per variant, the median, mean and 95% confidence interval of the metric,\n"
    "and against the first variant: the ratio of medians, the difference of means with its 95%\n"
    "confidence interval and the two-sided p-value of Welch's t-test (Welch-Satterthwaite degrees\n"
    "of freedom). Without --out the runs go to a temporary folder that is removed afterwards.\n";

/// A temporary folder removed on scope exit (only when we created it).
class TemporaryDir {
public:
  TemporaryDir()
  {
    const char* tmp     = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/walsim-compare-XXXXXX";
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder " + pattern);
    path_ = pattern;
  }
  ~TemporaryDir()
  {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TemporaryDir(const TemporaryDir&)            = delete;
  TemporaryDir& operator=(const TemporaryDir&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

std::string interval(double lo, double hi, bool sign)
{
  return "[" + (sign ? format_signed(lo) : format_figure(lo)) + ", " + (sign ? format_signed(hi) : format_figure(hi)) +
         "]";
}

void print_comparison(const Plan& plan, const Records& records, const std::string& metric, const std::string& scenario)
{
  const Axis& axis = plan.axes().front();
  std::cout << "walsim compare: " << metric << " of " << scenario << ", " << plan.repeat()
            << " replications per variant (seeds " << plan.seed_of(0) << ".." << plan.seed_of(plan.repeat() - 1)
            << ", the same for every variant)\n\n";
  std::vector<std::vector<std::string>> rows = {
      {axis.key, "n", "median", "mean", "95% CI of mean", "ratio", "diff. of means", "95% CI of diff.", "p (Welch)"}};
  const auto baseline = point_values(plan, records, 0, metric);
  for (const auto& p : plan.points()) {
    const auto values            = point_values(plan, records, p.index, metric);
    std::vector<std::string> row = {p.values.front(), std::to_string(values.size())};
    if (values.empty()) {
      rows.push_back(row);
      continue;
    }
    const Sample s = describe_sample(values);
    row.insert(row.end(), {format_figure(s.median), format_figure(s.mean),
                           s.ci_low ? interval(*s.ci_low, *s.ci_high, false) : "-"});
    if (p.index == 0 || baseline.size() < 2 || values.size() < 2) {
      row.insert(row.end(), {"-", "-", "-", "-"});
    } else {
      const double base_median = median(baseline);
      const WelchTest w        = welch_test(baseline, values);
      row.insert(row.end(), {base_median != 0 ? format_figure(s.median / base_median) : "-",
                             format_signed(w.difference), interval(w.ci_low, w.ci_high, true), format_p(w.p_value)});
    }
    rows.push_back(row);
  }
  std::cout << text_table(rows)
            << "\nratio: median / median of the first variant; diff. of means: mean - mean of the first, its 95% CI\n"
               "with Welch-Satterthwaite degrees of freedom; p: two-sided Welch's t-test of the difference.\n";
}

} // namespace

int compare_command(const std::vector<std::string>& args)
{
  const std::string who = "walsim compare";
  po::options_description desc("compare options");
  add_sweep_options(desc, 5);
  desc.add_options()("metric", po::value<std::string>()->default_value("tps"),
                     "the figure to compare: a column of results.csv, e.g. tps, latency_p95_ms, wait.IO:WALSync");
  po::variables_map vm;
  if (!parse_sweep_args(who, args, desc, vm)) return kBadInput;
  if (vm.count("help")) {
    std::cout << kCompareUsage << "\n" << desc;
    return kOk;
  }
  if (!vm.count("scenario")) {
    std::cerr << who << ": no scenario file given\n" << kCompareUsage;
    return kBadInput;
  }
  SweepRequest req;
  try {
    req = sweep_request(who, vm);
  } catch (const PlanError& e) {
    std::cerr << who << ": " << e.what() << "\n";
    return kBadInput;
  }
  const std::string metric = vm["metric"].as<std::string>();
  if (!known_metric(metric)) {
    std::cerr << who << ": --metric " << metric << " is not a column of results.csv (e.g. tps, latency_avg_ms, "
              << "latency_p95_ms, wal_bytes_per_xact, insert_lock_acquire_ms, wait.LWLock:WALWrite)\n";
    return kBadInput;
  }
  if (req.axes.size() != 1 || req.axes.front().values.size() < 2) {
    std::cerr << who << ": give exactly one --vary KEY=A,B[,...] with at least two variants\n";
    return kBadInput;
  }
  if (req.repeat < 2) {
    std::cerr << who << ": --repeat must be at least 2 for confidence intervals and a t-test\n";
    return kBadInput;
  }
  req.command_line = command_line("walsim compare", args);
  std::optional<TemporaryDir> tmp;
  try {
    if (req.out.empty()) req.out = tmp.emplace().path();
  } catch (const std::exception& e) {
    std::cerr << who << ": " << e.what() << "\n";
    return kInternalError;
  }
  const SweepOutcome outcome = run_sweep(req);
  if (outcome.status != kOk && outcome.status != kFailed) return outcome.status;
  print_comparison(*outcome.plan, outcome.records, metric, req.scenario.file);
  return outcome.status;
}

} // namespace cli
