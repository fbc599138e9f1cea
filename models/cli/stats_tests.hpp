/* The statistics of sweeps and comparisons: median, mean with its 95% confidence interval, and
 * Welch's t-test, as the pgsql-hackers threads report them (Student's t from Boost.Math). */
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace cli {

/// Median, mean and the 95% confidence interval of the mean of one metric's replications.
struct Sample {
  std::size_t n = 0;
  double median = 0;
  double mean   = 0;
  double stddev = 0;            // sample standard deviation (n - 1), 0 when n < 2
  std::optional<double> ci_low; // mean -/+ t(0.975, n-1) * s / sqrt(n); absent when n < 2
  std::optional<double> ci_high;
};

/// Throws std::invalid_argument when values is empty.
Sample describe_sample(std::vector<double> values);

double median(std::vector<double> values);

/// Welch's unequal-variances t-test of b against a: the difference of means b - a, its 95%
/// confidence interval with Welch-Satterthwaite degrees of freedom, and the two-sided p-value.
struct WelchTest {
  double difference = 0;
  double ci_low     = 0;
  double ci_high    = 0;
  double t          = 0;
  double df         = 0;
  double p_value    = 1;
};

/// Needs at least two values in each sample (throws std::invalid_argument otherwise).
WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b);

/// The two-sided 95% quantile of Student's t with df degrees of freedom, t(0.975, df).
double t_quantile_975(double df);

} // namespace cli
