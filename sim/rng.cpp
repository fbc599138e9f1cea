/* Deterministic random streams: stream derivation (SplitMix64, FNV-1a) and the inverse-CDF
 * sampling that replaces the implementation-defined std:: distributions.
 *
 * Stream derivation: the std::mt19937_64 of stream (seed, key) is seeded with the single word
 * mix64(seed ^ mix64(key)), where mix64 is one SplitMix64 step (golden-ratio increment, then the
 * finaliser). Hashing the key before combining it with the seed keeps streams of nearby keys
 * (replication 0, 1, 2 ...) and nearby seeds unrelated; the increment keeps (0, 0) away from the
 * finaliser's fixed point at zero. A string key is first reduced to a word by hash_key (FNV-1a
 * 64, then mix64) and that word used as above. The golden values pinned in tests/test_rng.cpp
 * guard this derivation: changing it changes every published result.
 */
#include "sim/rng.hpp"

#include <cassert>
#include <cmath>
#include <limits>

namespace sim {

namespace {

constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t kFnvOffset   = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime    = 0x100000001b3ULL;
constexpr double kTwoPowMinus53      = 1.0 / 9007199254740992.0;

} // namespace

std::uint64_t mix64(std::uint64_t x)
{
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t hash_key(std::string_view key)
{
  std::uint64_t h = kFnvOffset;
  for (char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= kFnvPrime;
  }
  return mix64(h);
}

Rng::Rng(std::uint64_t seed, std::string_view key) : Rng(seed, hash_key(key)) {}

Rng::Rng(std::uint64_t seed, std::uint64_t key) : engine_(mix64(seed ^ mix64(key))) {}

double Rng::uniform()
{
  // The top 53 bits fill a double's mantissa exactly, so every value k * 2^-53 is equally likely.
  return static_cast<double>(next_u64() >> 11) * kTwoPowMinus53;
}

std::uint64_t Rng::uniform_int(std::uint64_t lo, std::uint64_t hi)
{
  assert(lo <= hi);
  const std::uint64_t span = hi - lo;
  if (span == std::numeric_limits<std::uint64_t>::max()) return next_u64();
  const std::uint64_t n = span + 1;
  // Rejecting the lowest 2^64 mod n words leaves a multiple of n equally likely words, so x % n is
  // exactly uniform; at most half the words are ever rejected.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = next_u64();
    if (x >= threshold) return lo + x % n;
  }
}

double Rng::exponential(double mean)
{
  assert(mean >= 0);
  // uniform() < 1, so log1p(-u) is finite: the largest draw is mean * 53 * ln 2.
  const double u = uniform();
  return -mean * std::log1p(-u);
}

double Rng::standard_normal()
{
  constexpr double kTwoPi = 6.283185307179586;
  // 1 - uniform() lies in (0, 1], so the logarithm is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));
  return radius * std::cos(kTwoPi * uniform());
}

bool Rng::bernoulli(double p)
{
  return uniform() < p;
}

} // namespace sim
