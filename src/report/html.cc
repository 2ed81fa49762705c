#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace railkit::report {
namespace {

// Length of the valid UTF-8 sequence at text[i], 0 when it is not one.
size_t utf8Length(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&#39;";
        ++i;
        continue;
      default: break;
    }
    size_t n = utf8Length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (n == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
      out += ' ';  // control characters are not allowed in HTML text
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string num(double value, int digits) {
  if (!std::isfinite(value)) return "";
  std::string s = fmt::format("{:.{}f}", value, digits);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string label(double value) {
  if (!std::isfinite(value)) return "";
  if (value == 0 || std::fabs(value) >= 1) return num(value, 2);
  int digits = 2 - static_cast<int>(std::floor(std::log10(std::fabs(value))));
  return num(value, std::clamp(digits, 2, 9));
}

std::string text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  if (value.is_number()) return num(value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  if (value.is_null()) return "";
  return value.dump();
}

std::string textAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it == object.end() ? "" : text(*it);
}

double numberAt(const nlohmann::json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return fallback;
  return it->get<double>();
}

const nlohmann::json& arrayAt(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

const nlohmann::json& objectAt(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

bool boolAt(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return false;
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

int intAt(const nlohmann::json& object, const char* key, int fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return fallback;
  long long v = it->get<long long>();
  return v < -(1 << 30) || v > (1 << 30) ? fallback : static_cast<int>(v);
}

std::string sizeLabel(double bytes) {
  static const char* kUnits[] = {"", "K", "M", "G", "T"};
  double v = bytes;
  int unit = 0;
  while (unit < 4 && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++unit;
  }
  return num(v, 0) + kUnits[unit];
}

std::string section(std::string_view id, std::string_view title, const std::string& body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", esc(id), esc(title), body);
}

}  // namespace railkit::report
