// The whole per-input pipeline (reader, recognisers, perftest and table
// parsers, NCCL analysis, JSON) on arbitrary bytes: no crash, no hang, a kind
// always set, and the JSON always serialisable. The same bytes read from a
// file (the threaded reader, where the NCCL analysis is split between the
// reader thread and the caller's) must give the same report as from memory.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "logs/input.h"

namespace {

std::string report(const railkit::logs::InputReport& r) {
  auto replace = nlohmann::json::error_handler_t::replace;
  return railkit::logs::inputToJson(r).dump(-1, ' ', false, replace) +
         railkit::findingsToJson(r.findings).dump(-1, ' ', false, replace);
}

// One scratch file for the whole run, rewritten for every input, removed at exit.
char scratch_path[] = "/tmp/railkit_input_fuzz_XXXXXX";

const char* scratchPath() {
  static const bool made = [] {
    int fd = mkstemp(scratch_path);
    if (fd < 0) std::abort();
    close(fd);
    std::atexit([] { unlink(scratch_path); });
    return true;
  }();
  (void)made;
  return scratch_path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  railkit::logs::LineReaderOptions options;
  options.block_bytes = 1 + data[0] % 97;  // lines across many block boundaries
  options.max_line_bytes = 4096;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string path = scratchPath();
  auto from_memory = railkit::logs::analyzeText(path, text, options);
  if (from_memory.stats.bytes != text.size() && !from_memory.stats.binary) __builtin_trap();
  std::string want = report(from_memory);

  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  // Bigger blocks for the threaded read (every block is a hand-over between
  // threads); lines still cross their boundaries.
  options.block_bytes *= 41;
  auto from_file = railkit::logs::analyzeFile(path, options);
  if (!from_file || report(*from_file) != want) __builtin_trap();
  return 0;
}
