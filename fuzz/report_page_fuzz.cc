// Fuzzes `railkit report` over one JSON document of every kind it draws: the
// input is parsed as JSON and handed to the page as a validate, bench, logs,
// doctor and inspect document at once. Whatever the members hold (wrong
// types, huge ranks, NaN-free but absurd numbers, hostile strings), the page
// must be written, whole, with no markup from the input: every `<` in the
// input comes out as `&lt;`.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "report/page.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 16)) return 0;
  auto json =
      nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (json.is_discarded() || !json.is_object()) return 0;
  std::vector<railkit::report::Document> docs;
  for (const char* kind : {"railkit.validate/v1", "railkit.bench/v1", "railkit.logs/v1", "railkit.doctor/v1",
                           "railkit.inspect/v1", "railkit.lint/v1"}) {
    json["kind"] = kind;
    docs.push_back({"fuzz.json", kind, json});
  }
  railkit::report::PageOptions options;
  std::string html = railkit::report::renderPage(docs, options);
  if (html.rfind("<!DOCTYPE html>", 0) != 0 || html.find("</html>") == std::string::npos) std::abort();
  if (html.find("<script") != std::string::npos) std::abort();
  return 0;
}
