// Fuzzes what `railkit env` turns into shell text: the --data-if / --hca
// lists, quoting, comment lines and GID addresses. Beyond not crashing, the
// invariants that keep an eval safe must hold for any input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "podenv/names.h"
#include "podenv/port_map.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace railkit::podenv;
  if (auto names = parseInterfaceList(text, "--data-if")) {
    for (const auto& n : *names)
      if (netdevNameProblem(n) || n.find_first_of("\n\r,:/ ") != std::string::npos) std::abort();
  }
  if (auto hcas = parseHcaList(text)) {
    for (const auto& h : *hcas)
      if (rdmaNameProblem(h.device) || (h.port && (*h.port < 1 || *h.port > 255))) std::abort();
  }
  // A quoted value is one shell word: it starts and ends with a quote and
  // every quote inside is part of an '\'' escape.
  std::string quoted = railkit::shellQuote(text);
  if (quoted.size() < 2 || quoted.front() != '\'' || quoted.back() != '\'') std::abort();
  if (commentSafe(text).find_first_of("\n\r") != std::string::npos) std::abort();
  (void)ipv4OfGid(std::string(text));
  return 0;
}
