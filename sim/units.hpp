/* Quantities with units, written the way PostgreSQL writes GUC values ("8GB", "200ms", "30us").
 *
 * PostgreSQL's memory units are powers of 1024 (kB = 1024 bytes) and its time units are us, ms,
 * s, min, h, d (guc.c, memory_unit_conversion_table and time_unit_conversion_table). walsim adds
 * "ns" for CPU costs, frequencies ("3GHz") and bandwidths ("2GB/s"), which PostgreSQL never needs.
 */
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sim::units {

/// Parsed value in base units, or the reason the text is not a valid quantity.
struct Parsed {
  std::optional<double> value;
  std::string error; // "unknown unit 'mb' (units: B, kB, MB, GB, TB)", empty when value is set
};

Parsed parse_duration(std::string_view text);  // seconds; units ns, us, ms, s, min, h, d
Parsed parse_size(std::string_view text);      // bytes; units B, kB, MB, GB, TB (1024-based)
Parsed parse_frequency(std::string_view text); // hertz; units Hz, kHz, MHz, GHz
Parsed parse_bandwidth(std::string_view text); // bytes per second; a size unit followed by "/s"

/// Shortest exact-looking rendering with a unit, for reports and resolved scenarios ("200ms", "8GB").
std::string format_duration(double seconds);
std::string format_size(double bytes);
std::string format_frequency(double hertz);
std::string format_bandwidth(double bytes_per_second);

} // namespace sim::units
