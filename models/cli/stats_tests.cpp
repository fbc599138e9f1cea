/* Median, confidence intervals and Welch's t-test. */
#include "models/cli/stats_tests.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace cli {

namespace {

double mean_of(const std::vector<double>& v)
{
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v, double mean)
{
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

} // namespace

double median(std::vector<double> values)
{
  if (values.empty()) throw std::invalid_argument("median of no values");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double t_quantile_975(double df)
{
  return boost::math::quantile(boost::math::students_t(df), 0.975);
}

Sample describe_sample(std::vector<double> values)
{
  Sample s;
  s.n      = values.size();
  s.median = median(values);
  s.mean   = mean_of(values);
  if (s.n < 2) return s;
  s.stddev          = std::sqrt(variance_of(values, s.mean));
  const double half = t_quantile_975(static_cast<double>(s.n - 1)) * s.stddev / std::sqrt(static_cast<double>(s.n));
  s.ci_low          = s.mean - half;
  s.ci_high         = s.mean + half;
  return s;
}

WelchTest welch_test(const std::vector<double>& a, const std::vector<double>& b)
{
  if (a.size() < 2 || b.size() < 2) throw std::invalid_argument("Welch's t-test needs two values in each sample");
  const auto na   = static_cast<double>(a.size());
  const auto nb   = static_cast<double>(b.size());
  const double ma = mean_of(a);
  const double mb = mean_of(b);
  const double va = variance_of(a, ma) / na;
  const double vb = variance_of(b, mb) / nb;
  const double se = std::sqrt(va + vb);
  WelchTest w;
  w.difference = mb - ma;
  if (se == 0) {
    // Identical replications (a deterministic metric): the difference is exact.
    w.df     = na + nb - 2;
    w.ci_low = w.ci_high = w.difference;
    w.t                  = w.difference == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), w.difference);
    w.p_value            = w.difference == 0 ? 1 : 0;
    return w;
  }
  w.df              = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  w.t               = w.difference / se;
  const double half = t_quantile_975(w.df) * se;
  w.ci_low          = w.difference - half;
  w.ci_high         = w.difference + half;
  w.p_value         = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(w.df), std::fabs(w.t)));
  return w;
}

} // namespace cli
