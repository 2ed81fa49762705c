#pragma once
// Small text helpers shared by every parser. Pure functions of their input.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railkit {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
// Splits on runs of spaces/tabs, dropping empty fields.
std::vector<std::string_view> splitWhitespace(std::string_view s);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
std::string toLower(std::string_view s);

// Whole-string integer parses; nullopt on anything else (sign, junk, overflow).
std::optional<uint64_t> parseUint(std::string_view s, int base = 10);
std::optional<int64_t> parseInt(std::string_view s);
// Accepts "0x1f" and "1f" as hexadecimal.
std::optional<uint64_t> parseHex(std::string_view s);
std::optional<double> parseDouble(std::string_view s);

// `text` as one word of a POSIX shell: in single quotes, an embedded ' as '\''.
std::string shellQuote(std::string_view text);
// The same word, left bare when every character is one that means nothing
// to a shell (letters, digits, _.,:=/@%+-), else shellQuote's.
std::string shellWord(std::string_view text);

}  // namespace railkit
