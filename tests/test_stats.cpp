/* Tests of sim::Moments and sim::Histogram against direct computations on the same samples. */
#include "sim/rng.hpp"
#include "sim/stats.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

// The header's promise: any percentile within 1/64 of the exact order statistic.
constexpr double kRelativeError = 1.0 / 64;

std::vector<double> samples(std::uint64_t seed, int n, double offset, double scale)
{
  sim::Rng rng(seed, "stats");
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(offset + scale * rng.uniform());
  return out;
}

// The value at rank ceil(p/100 * n) (rank 1 for p = 0), the definition Histogram follows.
double exact_percentile(const std::vector<double>& sorted, double p)
{
  const auto n    = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100 * n)));
  return sorted[rank - 1];
}

void check_percentiles(std::vector<double> values)
{
  sim::Histogram h;
  for (double v : values) h.add(v);
  std::sort(values.begin(), values.end());
  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double exact = exact_percentile(values, p);
    INFO("p" << p << ": histogram " << h.percentile(p) << ", exact " << exact);
    CHECK(std::fabs(h.percentile(p) - exact) <= kRelativeError * exact);
  }
}

} // namespace

TEST_CASE("Moments agree with a two-pass computation", "[stats]")
{
  // A large offset makes the naive sum-of-squares formula lose every digit; Welford must not.
  const auto values = samples(1, 10000, 1e6, 1e-3);
  sim::Moments m;
  for (double v : values) m.add(v);

  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double variance = ss / static_cast<double>(values.size() - 1);

  CHECK(m.count() == values.size());
  CHECK(m.mean() == Approx(mean).epsilon(1e-14));
  CHECK(m.variance() == Approx(variance).epsilon(1e-6));
  CHECK(m.stddev() == Approx(std::sqrt(variance)).epsilon(1e-6));
  CHECK(m.min() == *std::min_element(values.begin(), values.end()));
  CHECK(m.max() == *std::max_element(values.begin(), values.end()));
}

TEST_CASE("Moments with fewer than two values", "[stats]")
{
  sim::Moments m;
  CHECK(m.count() == 0);
  CHECK(m.mean() == 0);
  CHECK(m.variance() == 0);
  m.add(-4.5);
  CHECK(m.count() == 1);
  CHECK(m.mean() == -4.5);
  CHECK(m.variance() == 0);
  CHECK(m.min() == -4.5);
  CHECK(m.max() == -4.5);
  m.reset();
  CHECK(m.count() == 0);
}

TEST_CASE("Moments merged from parts equal Moments of the whole", "[stats]")
{
  const auto values = samples(2, 5000, -3.0, 10.0);
  sim::Moments whole;
  for (double v : values) whole.add(v);

  // Uneven parts, one of them empty, merged in both directions.
  const std::vector<std::size_t> cuts = {0, 1, 1, 1200, 4999, values.size()};
  sim::Moments merged;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    sim::Moments part;
    for (std::size_t j = cuts[i]; j < cuts[i + 1]; ++j) part.add(values[j]);
    if (i % 2 == 0) {
      merged.merge(part);
    } else {
      part.merge(merged);
      merged = part;
    }
  }
  CHECK(merged.count() == whole.count());
  CHECK(merged.mean() == Approx(whole.mean()).epsilon(1e-12));
  CHECK(merged.variance() == Approx(whole.variance()).epsilon(1e-12));
  CHECK(merged.min() == whole.min());
  CHECK(merged.max() == whole.max());

  sim::Moments empty;
  sim::Moments copy = whole;
  copy.merge(empty);
  CHECK(copy.count() == whole.count());
  CHECK(copy.variance() == whole.variance());
}

TEST_CASE("Histogram percentiles of known distributions are within 1/64", "[stats]")
{
  sim::Rng rng(3, "histogram");
  const int n = 200000;

  std::vector<double> exponential;
  for (int i = 0; i < n; ++i) exponential.push_back(rng.exponential(1e-3));
  check_percentiles(exponential);

  // Log-uniform from 1ns to 1000s exercises every octave, including the first few nanoseconds.
  std::vector<double> log_uniform;
  for (int i = 0; i < n; ++i) log_uniform.push_back(1e-9 * std::pow(10.0, 12 * rng.uniform()));
  check_percentiles(log_uniform);

  std::vector<double> uniform;
  for (int i = 0; i < n; ++i) uniform.push_back(10e-6 + 20e-6 * rng.uniform());
  check_percentiles(uniform);
}

TEST_CASE("Histogram reports any single value within half a bucket", "[stats]")
{
  for (double v = 1e-9; v < 1000; v *= 1.0137) {
    sim::Histogram h;
    h.add(v);
    INFO("value " << v << " reported " << h.percentile(50));
    REQUIRE(std::fabs(h.percentile(50) - v) <= v / 128 * (1 + 1e-9));
  }
}

TEST_CASE("Histogram p0 and p100 are the extreme values and ranks round up", "[stats]")
{
  sim::Histogram h;
  for (double v : {2e-3, 5.0, 1e-6}) h.add(v);
  CHECK(h.percentile(0) == Approx(1e-6).epsilon(kRelativeError));
  CHECK(h.percentile(33.3) == Approx(1e-6).epsilon(kRelativeError)); // rank ceil(0.999) = 1
  CHECK(h.percentile(33.4) == Approx(2e-3).epsilon(kRelativeError)); // rank ceil(1.002) = 2
  CHECK(h.percentile(50) == Approx(2e-3).epsilon(kRelativeError));
  CHECK(h.percentile(100) == Approx(5.0).epsilon(kRelativeError));

  sim::Histogram tail;
  for (int i = 0; i < 999; ++i) tail.add(1e-3);
  tail.add(1.0);
  CHECK(tail.percentile(99.9) == Approx(1e-3).epsilon(kRelativeError)); // rank exactly 999
  CHECK(tail.percentile(99.95) == Approx(1.0).epsilon(kRelativeError));
}

TEST_CASE("Histogram when empty or out of range and after reset", "[stats]")
{
  sim::Histogram h;
  CHECK(h.count() == 0);
  CHECK(h.percentile(0) == 0);
  CHECK(h.percentile(50) == 0);
  CHECK(h.percentile(100) == 0);

  // Below 1ns (a wait that did not happen) reports 0; beyond the range reports the last bucket.
  for (double v : {0.0, -1.0, 1e-12, 0.99e-9}) h.add(v);
  CHECK(h.count() == 4);
  CHECK(h.percentile(100) == 0);
  h.add(1e6);
  h.add(std::numeric_limits<double>::infinity());
  CHECK(h.count() == 6);
  CHECK(h.percentile(100) > 1000);
  CHECK(h.percentile(100) < 1100);
  CHECK(h.percentile(50) == 0);

  h.reset();
  CHECK(h.count() == 0);
  CHECK(h.percentile(100) == 0);
  h.add(3e-6);
  CHECK(h.count() == 1);
  CHECK(h.percentile(50) == Approx(3e-6).epsilon(kRelativeError));
}

TEST_CASE("Histogram merged from parts equals the Histogram of the whole", "[stats]")
{
  sim::Rng rng(4, "merge");
  sim::Histogram whole, first, second;
  for (int i = 0; i < 50000; ++i) {
    const double v = rng.exponential(i % 3 == 0 ? 1e-2 : 5e-5);
    whole.add(v);
    (i % 7 == 0 ? first : second).add(v);
  }
  first.merge(second);
  REQUIRE(first.count() == whole.count());
  for (double p = 0; p <= 100; p += 0.5) CHECK(first.percentile(p) == whole.percentile(p));
}
