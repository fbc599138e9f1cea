/* Tests of the GUC-style quantities: every unit, the accepted spellings, each kind of bad input,
 * and that printing and parsing agree.
 */
#include "sim/units.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace units = sim::units;

namespace {

double value_of(const units::Parsed& parsed)
{
  INFO("error: " << parsed.error);
  REQUIRE(parsed.value.has_value());
  CHECK(parsed.error.empty());
  return *parsed.value;
}

std::string error_of(const units::Parsed& parsed)
{
  REQUIRE_FALSE(parsed.value.has_value());
  CHECK_FALSE(parsed.error.empty());
  return parsed.error;
}

} // namespace

TEST_CASE("units: every duration unit", "[units]")
{
  CHECK(value_of(units::parse_duration("35ns")) == Approx(35e-9));
  CHECK(value_of(units::parse_duration("30us")) == Approx(30e-6));
  CHECK(value_of(units::parse_duration("200ms")) == Approx(0.2));
  CHECK(value_of(units::parse_duration("5s")) == 5.0);
  CHECK(value_of(units::parse_duration("2min")) == 120.0);
  CHECK(value_of(units::parse_duration("1h")) == 3600.0);
  CHECK(value_of(units::parse_duration("1d")) == 86400.0);
}

TEST_CASE("units: every size unit is 1024-based", "[units]")
{
  CHECK(value_of(units::parse_size("100B")) == 100.0);
  CHECK(value_of(units::parse_size("8kB")) == 8.0 * 1024);
  CHECK(value_of(units::parse_size("16MB")) == 16.0 * 1024 * 1024);
  CHECK(value_of(units::parse_size("8GB")) == 8.0 * 1024 * 1024 * 1024);
  CHECK(value_of(units::parse_size("2TB")) == 2.0 * 1024 * 1024 * 1024 * 1024);
}

TEST_CASE("units: every frequency unit is 1000-based", "[units]")
{
  CHECK(value_of(units::parse_frequency("50Hz")) == 50.0);
  CHECK(value_of(units::parse_frequency("100kHz")) == 100e3);
  CHECK(value_of(units::parse_frequency("800MHz")) == 800e6);
  CHECK(value_of(units::parse_frequency("3GHz")) == 3e9);
}

TEST_CASE("units: bandwidths are a size unit per second", "[units]")
{
  CHECK(value_of(units::parse_bandwidth("10B/s")) == 10.0);
  CHECK(value_of(units::parse_bandwidth("100kB/s")) == 100.0 * 1024);
  CHECK(value_of(units::parse_bandwidth("500MB/s")) == 500.0 * 1024 * 1024);
  CHECK(value_of(units::parse_bandwidth("2GB/s")) == 2.0 * 1024 * 1024 * 1024);
  CHECK(value_of(units::parse_bandwidth("1TB/s")) == 1024.0 * 1024 * 1024 * 1024);
  CHECK(error_of(units::parse_bandwidth("2GB")) == "unknown unit \"GB\" (units: B/s, kB/s, MB/s, GB/s, TB/s)");
}

TEST_CASE("units: fractions, exponents and spaces", "[units]")
{
  CHECK(value_of(units::parse_duration("1.5ms")) == Approx(1.5e-3));
  CHECK(value_of(units::parse_duration(".5s")) == 0.5);
  CHECK(value_of(units::parse_size("0.5GB")) == 512.0 * 1024 * 1024);
  CHECK(value_of(units::parse_frequency("2.4GHz")) == Approx(2.4e9));
  CHECK(value_of(units::parse_duration("1e3ms")) == Approx(1.0));
  CHECK(value_of(units::parse_duration("200 ms")) == Approx(0.2));
  CHECK(value_of(units::parse_duration("  200ms  ")) == Approx(0.2));
  CHECK(value_of(units::parse_size(" 8 GB ")) == 8.0 * 1024 * 1024 * 1024);
  CHECK(error_of(units::parse_duration("200  ms")) == "unknown unit \" ms\" (units: ns, us, ms, s, min, h, d)");
}

TEST_CASE("units: bare numbers", "[units]")
{
  // PostgreSQL reads a size without unit in the setting's base unit; for walsim that is bytes.
  CHECK(value_of(units::parse_size("4096")) == 4096.0);
  CHECK(value_of(units::parse_size("0")) == 0.0);
  CHECK(error_of(units::parse_size("1.5")) == "a size without unit is a number of bytes and must be a whole number");

  CHECK(value_of(units::parse_duration("0")) == 0.0);
  CHECK(value_of(units::parse_duration("0.0")) == 0.0);
  CHECK(error_of(units::parse_duration("200")) == "expected a duration with a unit, such as \"200ms\"");
  CHECK(error_of(units::parse_frequency("3000")) == "expected a frequency with a unit, such as \"3GHz\"");
  CHECK(error_of(units::parse_bandwidth("100")) == "expected a bandwidth with a unit, such as \"2GB/s\"");
}

TEST_CASE("units: units are case-sensitive, with a hint", "[units]")
{
  CHECK(error_of(units::parse_size("8KB")) ==
        "unknown unit \"KB\" (did you mean \"kB\"? units are case-sensitive: B, kB, MB, GB, TB)");
  CHECK(error_of(units::parse_size("8kb")) ==
        "unknown unit \"kb\" (did you mean \"kB\"? units are case-sensitive: B, kB, MB, GB, TB)");
  CHECK(error_of(units::parse_size("8mb")) ==
        "unknown unit \"mb\" (did you mean \"MB\"? units are case-sensitive: B, kB, MB, GB, TB)");
  CHECK(error_of(units::parse_duration("5MS")) ==
        "unknown unit \"MS\" (did you mean \"ms\"? units are case-sensitive: ns, us, ms, s, min, h, d)");
  CHECK(error_of(units::parse_frequency("3ghz")) ==
        "unknown unit \"ghz\" (did you mean \"GHz\"? units are case-sensitive: Hz, kHz, MHz, GHz)");
}

TEST_CASE("units: bad input is rejected with a reason", "[units]")
{
  CHECK(error_of(units::parse_duration("200 parsecs")) == "unknown unit \"parsecs\" (units: ns, us, ms, s, min, h, d)");
  CHECK(error_of(units::parse_duration("")) == "empty value");
  CHECK(error_of(units::parse_duration("   ")) == "empty value");
  CHECK(error_of(units::parse_duration("-5ms")) == "negative values are not allowed");
  CHECK(error_of(units::parse_size("-1")) == "negative values are not allowed");
  CHECK(error_of(units::parse_duration("nan")) == "\"nan\" does not start with a number");
  CHECK(error_of(units::parse_duration("infs")) == "\"infs\" does not start with a number");
  CHECK(error_of(units::parse_duration("ms")) == "\"ms\" does not start with a number");
  CHECK(error_of(units::parse_duration("+5ms")) == "\"+5ms\" does not start with a number");
  CHECK(error_of(units::parse_size("0x10MB")) == "hexadecimal numbers are not allowed");
  CHECK(error_of(units::parse_duration("200ms extra")) ==
        "unknown unit \"ms extra\" (units: ns, us, ms, s, min, h, d)");
  CHECK(error_of(units::parse_duration("1.2.3ms")) == "unknown unit \".3ms\" (units: ns, us, ms, s, min, h, d)");
  CHECK(error_of(units::parse_size("1e400GB")) == "value is out of range");
  CHECK(error_of(units::parse_duration("1e-400s")) == "value is out of range");
  CHECK(error_of(units::parse_size("2e18")) == "value is too large");
  CHECK(error_of(units::parse_size("1000000TB")) == "value is too large");
  CHECK(error_of(units::parse_frequency("1e10GHz")) == "value is too large");
  CHECK(value_of(units::parse_size("1e18")) == 1e18);
}

TEST_CASE("units: formatting picks the largest unit giving a whole number", "[units]")
{
  CHECK(units::format_duration(0.2) == "200ms");
  CHECK(units::format_duration(3.5e-8) == "35ns");
  CHECK(units::format_duration(30e-6) == "30us");
  CHECK(units::format_duration(1.5e-3) == "1500us");
  CHECK(units::format_duration(90) == "90s");
  CHECK(units::format_duration(120) == "2min");
  CHECK(units::format_duration(7200) == "2h");
  CHECK(units::format_duration(86400) == "1d");
  CHECK(units::format_duration(0) == "0s");
  CHECK(units::format_duration(1.5e-10) == "0.15ns");
  CHECK(units::format_size(8.0 * 1024 * 1024 * 1024) == "8GB");
  CHECK(units::format_size(1536) == "1536B");
  CHECK(units::format_size(1.5 * 1024 * 1024 * 1024) == "1536MB");
  CHECK(units::format_size(2.0 * 1024 * 1024 * 1024 * 1024) == "2TB");
  CHECK(units::format_size(0) == "0B");
  CHECK(units::format_size(0.5) == "0.5B");
  CHECK(units::format_frequency(3e9) == "3GHz");
  CHECK(units::format_frequency(2.5e9) == "2500MHz");
  CHECK(units::format_frequency(0) == "0Hz");
  CHECK(units::format_bandwidth(2.0 * 1024 * 1024 * 1024) == "2GB/s");
  CHECK(units::format_bandwidth(500.0 * 1024 * 1024) == "500MB/s");
  CHECK(units::format_bandwidth(0) == "0B/s");
}

TEST_CASE("units: values without a whole-number unit get six significant digits", "[units]")
{
  CHECK(units::format_duration(1.0 / 3.0) == "333.333ms");
  CHECK(units::format_size(1000.5) == "1000.5B");
  CHECK(units::format_frequency(1234567.8) == "1.23457MHz");
  CHECK(units::format_bandwidth(1234567.8) == "1.17738MB/s");
}

TEST_CASE("units: printed values parse back", "[units]")
{
  for (const double seconds : {35e-9, 1e-6, 0.2, 1.5e-3, 1.0 / 3.0, 90.0, 3600.0, 86400.0 * 3, 0.0}) {
    INFO(seconds);
    CHECK(value_of(units::parse_duration(units::format_duration(seconds))) == Approx(seconds).epsilon(1e-5));
  }
  for (const double bytes : {0.0, 1.0, 8192.0, 1536.0, 16.0 * 1024 * 1024, 8.0 * 1024 * 1024 * 1024, 1e15}) {
    INFO(bytes);
    CHECK(value_of(units::parse_size(units::format_size(bytes))) == Approx(bytes).epsilon(1e-5));
  }
  for (const double hertz : {1.0, 2.4e9, 3e9, 123456.0}) {
    INFO(hertz);
    CHECK(value_of(units::parse_frequency(units::format_frequency(hertz))) == Approx(hertz).epsilon(1e-5));
  }
  for (const double rate : {100.0 * 1024, 2.0 * 1024 * 1024 * 1024, 3e8}) {
    INFO(rate);
    CHECK(value_of(units::parse_bandwidth(units::format_bandwidth(rate))) == Approx(rate).epsilon(1e-5));
  }
  for (const char* text : {"200ms", "35ns", "8GB", "16MB", "3GHz", "2GB/s"}) {
    INFO(text);
    const std::string written(text);
    if (written.find("/s") != std::string::npos)
      CHECK(units::format_bandwidth(value_of(units::parse_bandwidth(written))) == written);
    else if (written.find("Hz") != std::string::npos)
      CHECK(units::format_frequency(value_of(units::parse_frequency(written))) == written);
    else if (written.back() == 'B')
      CHECK(units::format_size(value_of(units::parse_size(written))) == written);
    else
      CHECK(units::format_duration(value_of(units::parse_duration(written))) == written);
  }
}
