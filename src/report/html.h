#pragma once
// The few pieces every section writes HTML and SVG with. Every string that
// comes from an input (host names, finding messages, log lines, file names)
// goes through esc(): an input is data, and a hostile one (`<script>` in a
// host name, a log line with `"` and `&`) must come out as text, never markup.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace railkit::report {

// Escapes & < > " ' for both element text and attribute values. Bytes that
// are not valid UTF-8 become U+FFFD so the page stays valid UTF-8.
std::string esc(std::string_view text);

// A JSON value as display text: strings as they are, numbers via num(),
// null and absent as "".
std::string text(const nlohmann::json& value);
std::string textAt(const nlohmann::json& object, const char* key);

// A number with `digits` decimals, trailing zeros kept off ("12.5", "3").
std::string num(double value, int digits = 2);

// A bandwidth label: two decimals as nccl-tests prints them ("31.89"), or
// three significant digits below 1 ("0.0127") where two decimals say 0.01.
std::string label(double value);

// Bytes as nccl-tests users read them: 1K, 64K, 1M, 8G (powers of 2), or
// the byte count when it is not a power-of-2 multiple.
std::string sizeLabel(double bytes);

// Members read without trusting the input's types: a member that is absent
// or of another type reads as an empty array / empty object / false /
// `fallback`, so a hand-edited or truncated document never stops the page.
const nlohmann::json& arrayAt(const nlohmann::json& object, const char* key);
const nlohmann::json& objectAt(const nlohmann::json& object, const char* key);
bool boolAt(const nlohmann::json& object, const char* key);
int intAt(const nlohmann::json& object, const char* key, int fallback);

// A number read from a JSON member; `fallback` when absent, null or not a number.
double numberAt(const nlohmann::json& object, const char* key, double fallback = 0);

// <section> with an id and an <h2>; `body` is already HTML.
std::string section(std::string_view id, std::string_view title, const std::string& body);

}  // namespace railkit::report
