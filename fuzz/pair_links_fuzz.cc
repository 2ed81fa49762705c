// Fuzzes the reader of validate's compact pairs links (core/pair_links.h):
// the input as one row at several positions, and as a pairs object in
// either form.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "core/pair_links.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto [a, n] : {std::pair{0, 2}, std::pair{0, 4}, std::pair{2, 8}, std::pair{-1, 3}, std::pair{5, 3}})
    (void)railkit::parseLinkRow(text, a, n);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) {
    auto links = railkit::readPairLinks(doc);
    if (links) (void)railkit::encodeLinkRows(static_cast<int>(links->size() % 64), *links);
  }
  return 0;
}
