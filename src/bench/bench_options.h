#pragma once
// Every option of `railkit bench`, and the ones `railkit validate` shares,
// declared once: its flag letters, the BenchFlags member it sets, its default
// (validate's where it differs), its bounds and unit, its help line and the
// longer text of the docs. The CLI registers its options from this table,
// validateBenchFlags checks the bounds from it, and docs/bench.md and
// docs/validate.md get their option tables from it (`make docs`).

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bench/bench_flags.h"
#include "core/strings.h"

namespace railkit::bench {

// The BenchFlags member an option sets.
using FlagField = std::variant<std::string BenchFlags::*, int BenchFlags::*, double BenchFlags::*,
                               std::optional<double> BenchFlags::*, bool BenchFlags::*>;

enum class OptionCheck {
  kText,             // free text: an interface spec, a path, an id (checked elsewhere if at all)
  kSize,             // a size as nccl-tests writes it (8, 128K, 1M), at most `hi` bytes
  kWhole,            // a whole number in [lo, hi]
  kNumber,           // a finite number in [lo, hi] ((lo, hi] when lo_open; hi may be infinite)
  kChoice,           // one of `choices`
  kSwitch,           // a flag without a value
  kSwitchWithValue,  // a flag with an optional =VALUE (`switch_value` when bare)
};

// Which command registers an option.
enum class OptionUse { kBenchOnly, kBoth };
enum class Command { kBench, kValidate };

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// What the CLI, the checks and the docs read of an option, whichever flags
// struct it sets (bench's BenchFlags here, validate's own in
// validate/validate_options.h).
struct OptionSpec {
  const char* names = "";  // CLI11's spelling: "-n,--iters", "--backend"
  OptionCheck check = OptionCheck::kText;
  double lo = 0, hi = kUnbounded;
  bool lo_open = false;
  // The unit the value is in ("seconds", "GB/s", "timed iterations").
  const char* unit = "";
  // What a valid value is, when a short list says it better than the bounds
  // ("0 (rank 0), 1 (mean), 2 (min) or 3 (max)"); empty: from the bounds.
  const char* meaning = "";
  std::vector<std::string> choices;
  // Defaults as the user would write them; nullptr: not given (0 / empty /
  // unset), which is never checked against the bounds.
  const char* bench_default = nullptr;
  const char* validate_default = nullptr;  // nullptr: bench's
  const char* help = "";                   // the --help line
  const char* validate_help = nullptr;     // nullptr: help
  const char* details = "";                // appended to help in the docs only
  OptionUse use = OptionUse::kBoth;        // a bench row: does validate share it
  const char* switch_value = nullptr;      // kSwitchWithValue: the value of the bare flag
};

struct BenchOption : OptionSpec {
  FlagField field;
};

// The table, in --help and docs order.
const std::vector<BenchOption>& benchOptions();

// The options `command` registers (validate: the shared rows).
std::vector<const BenchOption*> optionsOf(Command command);

// "-n/--iters" for messages; "--backend" for a long name alone.
std::string optionLabel(const OptionSpec& option);

// What a valid value is: "1 to 1000000 timed iterations", "seconds above 0
// up to 86400", "one of sum prod min max".
std::string expectedText(const OptionSpec& option);

// Empty when `text`, as the user wrote it, is a valid value of `option`;
// else "expected <expectedText>, found '<text>'". The CLI checks each value
// with this while it parses.
std::string checkOptionText(const OptionSpec& option, const std::string& text);

// The flags of `command` with every tabled default applied (bench's
// BenchFlags{} already holds bench's defaults).
BenchFlags defaultFlags(Command command);

// The default of `option` for `command` as the docs show it ("" when none).
std::string defaultText(const OptionSpec& option, Command command);

// A row of an option table (Row: BenchOption, validate's ValidateOption)
// with its names, field, check and bounds; the table fills in the rest.
template <class Row, class Field>
Row optionRow(const char* names, Field field, OptionCheck check = OptionCheck::kText, double lo = 0,
              double hi = kUnbounded, bool lo_open = false) {
  Row o;
  o.names = names;
  o.field = field;
  o.check = check;
  o.lo = lo;
  o.hi = hi;
  o.lo_open = lo_open;
  return o;
}

// Sets the member `field` (a variant of member pointers) of `flags` from
// `text` as a default is written in a table.
template <class Flags, class Field>
void setFromText(Flags& flags, const Field& field, const char* text) {
  std::visit(
      [&](auto member) {
        using T = std::remove_reference_t<decltype(flags.*member)>;
        if constexpr (std::is_same_v<T, std::string>) {
          flags.*member = text;
        } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::optional<int>>) {
          flags.*member = static_cast<int>(parseInt(text).value_or(0));
        } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::optional<double>>) {
          flags.*member = parseDouble(text).value_or(0);
        } else {
          flags.*member = std::string_view(text) == "true";
        }
      },
      field);
}

// Every tabled option of `flags` that was given (or has a default) within
// its bounds: the first one out of them as kUsage "-n/--iters: expected ...,
// found 0".
Status checkTabledOptions(const BenchFlags& flags);

}  // namespace railkit::bench
