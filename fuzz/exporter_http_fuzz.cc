// Fuzzes the exporter's HTTP request head parser (any bytes a client could
// send), and checks what the server relies on: a complete head lies within
// the input and the cap, its views point into the input (or a literal), the same head
// parses the same from its own bytes, while a beginning of it is never an
// error (the server would answer 400 to a request still arriving).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exporter/http.h"

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ex = railkit::exporter;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto head = ex::parseRequestHead(bytes);
  if (!head || !head->complete) return 0;
  if (head->size == 0 || head->size > bytes.size() || head->size > ex::kMaxRequestHead) __builtin_trap();
  // An absolute-form target without a path ("http://host") has the path "/"
  // of a literal; every other view is into the input.
  if (!inside(head->method, bytes) || !(inside(head->path, bytes) || head->path == "/")) __builtin_trap();
  if (head->refusal != 0) return 0;
  if (head->path.empty() || (head->path.front() != '/' && head->path != "*")) __builtin_trap();
  auto again = ex::parseRequestHead(bytes.substr(0, head->size));
  if (!again || !again->complete || again->size != head->size || again->path != head->path ||
      again->keep_alive != head->keep_alive || again->content_length != head->content_length)
    __builtin_trap();
  for (size_t cut : {head->size / 2, head->size - 1}) {
    auto partial = ex::parseRequestHead(bytes.substr(0, cut));
    if (!partial || partial->complete) __builtin_trap();
  }
  return 0;
}
