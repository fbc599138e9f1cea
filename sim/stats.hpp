/* Statistics kept while simulating: running moments and latency histograms with percentiles. */
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace sim {

/// Count, mean and variance by Welford's method.
class Moments {
public:
  void add(double x);
  std::uint64_t count() const { return n_; }
  double mean() const { return mean_; }
  double variance() const; // sample variance, 0 with fewer than 2 values
  double stddev() const;
  double min() const { return min_; }
  double max() const { return max_; }
  void merge(const Moments& other);
  void reset() { *this = Moments(); }

private:
  std::uint64_t n_ = 0;
  double mean_     = 0;
  double m2_       = 0;
  double min_      = 0;
  double max_      = 0;
};

/// Log-linear histogram of positive durations (seconds) from 1ns to about 1000s: each power of
/// two is split into 64 sub-buckets, so any percentile is within 1.6% of the exact value.
class Histogram {
public:
  Histogram();
  void add(double seconds);
  std::uint64_t count() const { return count_; }
  /// p in [0, 100]; 0 when empty. Returns the midpoint of the bucket holding the p-th value.
  double percentile(double p) const;
  void merge(const Histogram& other);
  void reset();

private:
  static constexpr int kSubBits = 6;
  static int bucket_of(double seconds);
  static double bucket_mid(int bucket);
  std::vector<std::uint64_t> buckets_;
  std::uint64_t count_ = 0;
};

} // namespace sim
