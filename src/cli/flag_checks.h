// CLI11 checks for the flags whose values have bounds: a bad value is refused
// while the command line is parsed, one line and exit 2 like every other
// usage error, before anything runs. CLI11's own numeric validators (Range,
// PositiveNumber, NonNegativeNumber) let NaN through (every comparison with
// it is false), so seconds and rates are checked here: finite, then bounded.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace railkit::cli {

// A finite number in [lo, hi] ((lo, hi] when lo_open); `what` names the unit
// in the message: "--interval: expected seconds from 1 to 3600, found nan".
inline CLI::Validator finiteRange(double lo, double hi, const std::string& what, bool lo_open = false) {
  auto text = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  std::string bounds =
      lo_open ? "above " + text(lo) + " up to " + text(hi) : "from " + text(lo) + " to " + text(hi);
  return CLI::Validator(
      [lo, hi, lo_open, what, bounds](std::string& value) -> std::string {
        double v = 0;
        bool ok = CLI::detail::lexical_cast(value, v) && std::isfinite(v) && (lo_open ? v > lo : v >= lo) &&
                  v <= hi;
        return ok ? std::string() : "expected " + what + " " + bounds + ", found '" + value + "'";
      },
      "FLOAT in " + std::string(lo_open ? "(" : "[") + text(lo) + ", " + text(hi) + "]");
}

// A whole number in [lo, hi], with what each value means when the range is a
// short list of choices: "expected 0 (rank 0), 1 (mean), 2 (min) or 3 (max)".
// CLI::Range's message ("Value 9 not in range 0 to 3") names neither the
// meaning nor, for counts, that fractions are refused.
inline CLI::Validator wholeNumber(long long lo, long long hi, const std::string& meaning = "") {
  std::string expected =
      meaning.empty() ? "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) : meaning;
  return CLI::Validator(
      [lo, hi, expected](std::string& value) -> std::string {
        long long v = 0;
        bool ok = CLI::detail::lexical_cast(value, v) && v >= lo && v <= hi;
        return ok ? std::string() : "expected " + expected + ", found '" + value + "'";
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// A finite number above zero (lo_open) or of zero or more.
inline CLI::Validator finiteAtLeastZero(const std::string& what, bool zero_ok) {
  return CLI::Validator(
      [what, zero_ok](std::string& value) -> std::string {
        double v = 0;
        bool ok = CLI::detail::lexical_cast(value, v) && std::isfinite(v) && (zero_ok ? v >= 0 : v > 0);
        return ok ? std::string()
                  : "expected " + what + (zero_ok ? " of 0 or more" : " above 0") + ", found '" + value + "'";
      },
      zero_ok ? "FLOAT >= 0" : "FLOAT > 0");
}

}  // namespace railkit::cli
