/* Deterministic random streams.
 *
 * Standard-library distributions differ between implementations, so walsim draws raw 64-bit
 * words from std::mt19937_64 (whose output the standard fixes) and does its own inverse-CDF
 * sampling: the same seed gives the same bytes on every platform. Each actor gets its own
 * stream, derived from the scenario seed and a stream key with SplitMix64, so adding an actor
 * does not shift the draws of the others.
 */
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

namespace sim {

class Rng {
public:
  /// The stream for key under seed (key: e.g. the actor's name, replication number mixed in).
  Rng(std::uint64_t seed, std::string_view key);
  Rng(std::uint64_t seed, std::uint64_t key);

  std::uint64_t next_u64() { return engine_(); }
  double uniform();                                              // [0, 1), 53 random bits
  std::uint64_t uniform_int(std::uint64_t lo, std::uint64_t hi); // inclusive, unbiased
  double exponential(double mean);
  /// A standard normal draw (Box-Muller on two uniforms; the second variate is not kept, so a
  /// draw always takes two words and the stream stays a function of the number of draws).
  double standard_normal();
  bool bernoulli(double p);

private:
  std::mt19937_64 engine_;
};

/// SplitMix64 finaliser: a well-mixed 64-bit hash of x.
std::uint64_t mix64(std::uint64_t x);
/// Stable 64-bit hash of a string (FNV-1a then mix64), for stream keys.
std::uint64_t hash_key(std::string_view key);

} // namespace sim
