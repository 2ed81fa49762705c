// Feeds arbitrary bytes to the MPI hostfile parser and, when they parse, to
// the FQDN rewriter: never a crash or out-of-bounds read, and what the
// rewriter writes must parse again with the same hosts, lines and slots.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "doctor/hostfile.h"

using railkit::doctor::FqdnOptions;
using railkit::doctor::parseHostfile;
using railkit::doctor::rewriteHostfileFqdn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parseHostfile(text, "fuzz");
  if (!parsed) {
    if (parsed.error().message.rfind("fuzz:", 0) != 0) __builtin_trap();  // errors name file:line
    return 0;
  }
  int last_line = 0;
  for (const auto& e : parsed->entries) {
    if (e.host.empty() || e.line <= last_line) __builtin_trap();
    if (e.slots && *e.slots == 0) __builtin_trap();
    last_line = e.line;
  }
  FqdnOptions options;
  options.ns = "team";
  options.service = "job-worker";
  auto rewritten = rewriteHostfileFqdn(text, *parsed, options, "fuzz");
  if (!rewritten) return 0;
  auto again = parseHostfile(*rewritten, "out");
  if (!again) {
    // Only a name the suffix made too long may fail.
    if (again.error().message.find("characters, more than") == std::string::npos) __builtin_trap();
    return 0;
  }
  if (again->entries.size() != parsed->entries.size()) __builtin_trap();
  for (size_t i = 0; i < again->entries.size(); ++i)
    if (again->entries[i].line != parsed->entries[i].line ||
        again->entries[i].slots != parsed->entries[i].slots)
      __builtin_trap();
  return 0;
}
