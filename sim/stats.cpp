/* Statistics kept while simulating: Welford moments (mergeable across replications and actors)
 * and a log-linear latency histogram.
 *
 * Histogram layout: a value is scaled to nanoseconds, v = seconds * 1e9. Bucket 0 holds every
 * v < 1 (in practice exact zeros: a lock taken without waiting) and reports 0. For v >= 1 the
 * octave [2^k, 2^(k+1)) ns, k = 0 .. 39, is cut into 64 equal sub-buckets taken from the top six
 * mantissa bits, as HdrHistogram does on integers; working on the double rather than on whole
 * nanoseconds keeps the 1/64 relative bucket width down to 1ns itself. 2^40 ns is about 1100 s;
 * larger values land in the last bucket. The midpoint of a bucket is then within 1/128 of any value
 * in it.
 */
#include "sim/stats.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace sim {

namespace {

constexpr int kSubBuckets  = 64;
constexpr int kOctaves     = 40;
constexpr int kBucketCount = 1 + kOctaves * kSubBuckets;

} // namespace

void Moments::add(double x)
{
  ++n_;
  if (n_ == 1) {
    min_ = max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

double Moments::variance() const
{
  return n_ < 2 ? 0.0 : m2_ / static_cast<double>(n_ - 1);
}

double Moments::stddev() const
{
  return std::sqrt(variance());
}

void Moments::merge(const Moments& other)
{
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  // Chan, Golub and LeVeque's pairwise update: exact for any split of the data.
  const double na    = static_cast<double>(n_);
  const double nb    = static_cast<double>(other.n_);
  const double n     = na + nb;
  const double delta = other.mean_ - mean_;
  mean_ += delta * nb / n;
  m2_ += other.m2_ + delta * delta * na * nb / n;
  n_ += other.n_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

Histogram::Histogram() : buckets_(kBucketCount, 0)
{
  static_assert(kSubBuckets == 1 << kSubBits);
}

int Histogram::bucket_of(double seconds)
{
  assert(!std::isnan(seconds));
  const double ns = seconds * 1e9;
  if (!(ns >= 1.0)) return 0; // also catches NaN in release builds
  if (ns >= std::ldexp(1.0, kOctaves)) return kBucketCount - 1;
  int exp               = 0;
  const double mantissa = std::frexp(ns, &exp); // ns = mantissa * 2^exp, mantissa in [0.5, 1)
  const int octave      = exp - 1;
  const int sub         = static_cast<int>((2.0 * mantissa - 1.0) * kSubBuckets);
  return 1 + octave * kSubBuckets + sub;
}

double Histogram::bucket_mid(int bucket)
{
  if (bucket == 0) return 0.0;
  const int octave   = (bucket - 1) / kSubBuckets;
  const int sub      = (bucket - 1) % kSubBuckets;
  const double width = std::ldexp(1.0, octave) / kSubBuckets;
  const double low   = std::ldexp(1.0, octave) + sub * width;
  return (low + width / 2) * 1e-9;
}

void Histogram::add(double seconds)
{
  ++buckets_[static_cast<std::size_t>(bucket_of(seconds))];
  ++count_;
}

double Histogram::percentile(double p) const
{
  if (count_ == 0) return 0.0;
  p                  = std::isnan(p) ? 0.0 : std::clamp(p, 0.0, 100.0);
  const double exact = p * static_cast<double>(count_) / 100.0;
  // The relative slack absorbs rounding in p * count (99.9% of 1000 must be rank 999, not 1000).
  const double ceiled      = std::ceil(exact - exact * 1e-12);
  const std::uint64_t rank = std::clamp(static_cast<std::uint64_t>(std::max(ceiled, 1.0)), std::uint64_t{1}, count_);
  std::uint64_t seen       = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return bucket_mid(static_cast<int>(b));
  }
  return bucket_mid(kBucketCount - 1);
}

void Histogram::merge(const Histogram& other)
{
  for (std::size_t b = 0; b < buckets_.size(); ++b) buckets_[b] += other.buckets_[b];
  count_ += other.count_;
}

void Histogram::reset()
{
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
}

} // namespace sim
