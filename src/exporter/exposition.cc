#include "exporter/exposition.h"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "exporter/families.h"

namespace railkit::exporter {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
size_t utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if (n == 2 && c < 0xc2) return 0;
  if (n == 3 && ((c == 0xe0 && byte(i + 1) < 0xa0) || (c == 0xed && byte(i + 1) >= 0xa0))) return 0;
  if (n == 4 && ((c == 0xf0 && byte(i + 1) < 0x90) || c > 0xf4 || (c == 0xf4 && byte(i + 1) >= 0x90)))
    return 0;
  return n;
}

}  // namespace

std::string escapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    size_t n = utf8Length(value, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    char c = value[i];
    if (n == 1 && c == '\\')
      out += "\\\\";
    else if (n == 1 && c == '"')
      out += "\\\"";
    else if (n == 1 && c == '\n')
      out += "\\n";
    else
      out.append(value.substr(i, n));
    i += n;
  }
  return out;
}

std::string formatValue(uint64_t value) {
  return std::to_string(value);
}

std::string formatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Integral values below 2^53 print as integers: what a reader compares.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
    return std::to_string(static_cast<int64_t>(value));
  return fmt::format("{}", value);
}

void Exposition::family(const MetricFamily& family) {
  name_ = std::string(family.name);
  std::string escaped;
  for (char c : family.help) {
    if (c == '\\')
      escaped += "\\\\";
    else if (c == '\n')
      escaped += "\\n";
    else
      escaped += c;
  }
  text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name_, escaped, name_, family.type);
}

void Exposition::sample(const Labels& labels, const std::string& value) {
  text_ += name_;
  if (!labels.empty()) {
    text_ += '{';
    bool first = true;
    for (const auto& [key, val] : labels) {
      if (!first) text_ += ',';
      first = false;
      text_ += key;
      text_ += "=\"";
      text_ += escapeLabelValue(val);
      text_ += '"';
    }
    text_ += '}';
  }
  text_ += ' ';
  text_ += value;
  text_ += '\n';
}

}  // namespace railkit::exporter
