/* Parsing and printing of quantities with units ("8GB", "200ms", "3GHz", "2GB/s").
 *
 * The grammar follows PostgreSQL's GUC values: a non-negative decimal number, an optional single
 * space, then a case-sensitive unit. Numbers are scanned by hand rather than with strtod so that
 * hex, "inf", "nan" and locale-dependent decimal points are never accepted by accident.
 */
#include "sim/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace sim::units {

namespace {

struct Unit {
  std::string_view name;
  double factor; // base units per unit
};

/// One kind of quantity: its units, smallest first, and how it reads without a unit.
struct Kind {
  std::string_view what;    // "duration"
  std::string_view example; // "200ms"
  const Unit* units;
  std::size_t count;
  bool bare_bytes; // a whole number without unit is accepted (sizes, as in PostgreSQL)

  const Unit* begin() const { return units; }
  const Unit* end() const { return units + count; }
};

constexpr double kKiB = 1024.0;

constexpr std::array<Unit, 7> kDurationUnits{
    {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}}};
constexpr std::array<Unit, 5> kSizeUnits{
    {{"B", 1.0}, {"kB", kKiB}, {"MB", kKiB* kKiB}, {"GB", kKiB* kKiB* kKiB}, {"TB", kKiB* kKiB* kKiB* kKiB}}};
constexpr std::array<Unit, 4> kFrequencyUnits{{{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}};
constexpr std::array<Unit, 5> kBandwidthUnits{
    {{"B/s", 1.0}, {"kB/s", kKiB}, {"MB/s", kKiB* kKiB}, {"GB/s", kKiB* kKiB* kKiB}, {"TB/s", kKiB* kKiB* kKiB* kKiB}}};

constexpr Kind kDuration{"duration", "200ms", kDurationUnits.data(), kDurationUnits.size(), false};
constexpr Kind kSize{"size", "8GB", kSizeUnits.data(), kSizeUnits.size(), true};
constexpr Kind kFrequency{"frequency", "3GHz", kFrequencyUnits.data(), kFrequencyUnits.size(), false};
constexpr Kind kBandwidth{"bandwidth", "2GB/s", kBandwidthUnits.data(), kBandwidthUnits.size(), false};

/// Anything larger is certainly a typo, and staying far below 2^63 keeps later integer
/// conversions of these values safe.
constexpr double kMaxBaseUnits = 1e18;

bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

char to_lower(char c)
{
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equal_ignoring_case(std::string_view a, std::string_view b)
{
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  return true;
}

std::string_view trim(std::string_view text)
{
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string quoted(std::string_view text)
{
  return "\"" + std::string(text) + "\"";
}

std::string unit_list(const Kind& kind)
{
  std::string list;
  for (const Unit& unit : kind) {
    if (!list.empty()) list += ", ";
    list += unit.name;
  }
  return list;
}

Parsed failure(std::string message)
{
  return Parsed{std::nullopt, std::move(message)};
}

/// Length of the leading decimal number (digits, fraction, exponent) of text, 0 if none.
std::size_t scan_number(std::string_view text)
{
  std::size_t i      = 0;
  std::size_t digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  // An exponent only counts when digits follow, so a unit starting with "e" would still parse.
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < text.size() && is_digit(text[j])) {
      while (j < text.size() && is_digit(text[j])) ++j;
      i = j;
    }
  }
  return i;
}

Parsed unknown_unit(const Kind& kind, std::string_view unit)
{
  for (const Unit& candidate : kind)
    if (equal_ignoring_case(candidate.name, unit))
      return failure("unknown unit " + quoted(unit) + " (did you mean " + quoted(candidate.name) +
                     "? units are case-sensitive: " + unit_list(kind) + ")");
  return failure("unknown unit " + quoted(unit) + " (units: " + unit_list(kind) + ")");
}

Parsed parse(std::string_view text, const Kind& kind)
{
  text = trim(text);
  if (text.empty()) return failure("empty value");
  if (text.front() == '-') return failure("negative values are not allowed");

  const std::size_t length = scan_number(text);
  if (length == 0) return failure(quoted(text) + " does not start with a number");
  const std::string_view number = text.substr(0, length);
  std::string_view unit         = text.substr(length);
  if (number == "0" && !unit.empty() && (unit.front() == 'x' || unit.front() == 'X'))
    return failure("hexadecimal numbers are not allowed");

  double value      = 0;
  const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
  if (result.ec != std::errc() || !std::isfinite(value)) return failure("value is out of range");

  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    if (kind.bare_bytes && value == std::floor(value))
      return value > kMaxBaseUnits ? failure("value is too large") : Parsed{value, ""};
    if (kind.bare_bytes) return failure("a size without unit is a number of bytes and must be a whole number");
    if (value == 0) return Parsed{0.0, ""};
    return failure("expected a " + std::string(kind.what) + " with a unit, such as " + quoted(kind.example));
  }

  for (const Unit& candidate : kind) {
    if (candidate.name != unit) continue;
    const double scaled = value * candidate.factor;
    if (scaled > kMaxBaseUnits) return failure("value is too large");
    return Parsed{scaled, ""};
  }
  return unknown_unit(kind, unit);
}

std::string print_number(const char* format, double value)
{
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), format, value);
  return buffer.data();
}

/// The largest unit in which value is a whole number, else the largest unit in which it is at
/// least 1, printed with six significant digits.
std::string format(double value, const Kind& kind)
{
  if (std::isnan(value)) return "nan";
  if (value < 0) return "-" + format(-value, kind);
  if (std::isinf(value)) return "inf";
  const Unit* base = kind.begin();
  while (base->factor != 1.0) ++base;
  if (value == 0) return "0" + std::string(base->name);

  for (const Unit* unit = kind.end(); unit != kind.begin();) {
    --unit;
    const double quotient = value / unit->factor;
    const double whole    = std::round(quotient);
    if (whole >= 1 && std::fabs(quotient - whole) <= 1e-12 * whole)
      return print_number("%.0f", whole) + std::string(unit->name);
  }
  const Unit* unit = kind.end() - 1;
  while (unit != kind.begin() && value / unit->factor < 1) --unit;
  return print_number("%.6g", value / unit->factor) + std::string(unit->name);
}

} // namespace

Parsed parse_duration(std::string_view text)
{
  return parse(text, kDuration);
}

Parsed parse_size(std::string_view text)
{
  return parse(text, kSize);
}

Parsed parse_frequency(std::string_view text)
{
  return parse(text, kFrequency);
}

Parsed parse_bandwidth(std::string_view text)
{
  return parse(text, kBandwidth);
}

std::string format_duration(double seconds)
{
  return format(seconds, kDuration);
}

std::string format_size(double bytes)
{
  return format(bytes, kSize);
}

std::string format_frequency(double hertz)
{
  return format(hertz, kFrequency);
}

std::string format_bandwidth(double bytes_per_second)
{
  return format(bytes_per_second, kBandwidth);
}

} // namespace sim::units
