// The line reader must give the same lines whatever the block size and never
// keep more than the cap of one line, on any bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "logs/line_reader.h"

namespace {

struct Collect : railkit::logs::LineSink {
  std::vector<std::string> lines;
  size_t cap = 0;
  void line(std::string_view text, uint64_t n, bool) override {
    if (text.size() > cap || n != lines.size() + 1) __builtin_trap();
    lines.emplace_back(text);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  size_t block = 1 + data[0] % 64;
  size_t cap = 1 + data[1] % 128;
  std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  Collect small, large;
  small.cap = cap;
  large.cap = cap;
  auto a = railkit::logs::readLinesFromText(text, small, {block, cap});
  auto b = railkit::logs::readLinesFromText(text, large, {size_t{1} << 16, cap});
  // The binary sniff sees a different sample size with a small cap only when
  // the blocks differ; compare the lines when both read the input as text.
  if (!a.binary && !b.binary && small.lines != large.lines) __builtin_trap();
  return 0;
}
