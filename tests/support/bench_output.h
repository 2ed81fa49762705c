#pragma once
// For the tests that run railkit (through support/process.h): whether this
// is a sanitizer build, and the nccl-tests-style data rows of an output with
// those whose #wrong columns are not zero.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace railkit::testing {

// Sanitizer builds run smaller sizes (set by the sanitizer pass).
inline bool sanitizerBuild() {
  return std::getenv("RAILKIT_SANITIZER_BUILD") != nullptr;
}

// One data row of nccl-tests-style output: size count type redop root, then
// time algbw busbw #wrong out of place and the same in place.
struct BenchRow {
  unsigned long long size = 0, count = 0;
  std::string type, redop;
  int root = 0;
  double time[2] = {0, 0}, algbw[2] = {0, 0}, busbw[2] = {0, 0};
  int wrong[2] = {0, 0};
};

// The data rows of `out` (comment lines and anything else skipped).
inline std::vector<BenchRow> parseRows(const std::string& out) {
  std::vector<BenchRow> rows;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    std::string line = out.substr(pos, end - pos);
    pos = end == std::string::npos ? out.size() : end + 1;
    if (line.empty() || line[0] == '#') continue;
    BenchRow r;
    char type[16], redop[16];
    if (sscanf(line.c_str(), "%llu %llu %15s %15s %d %lf %lf %lf %d %lf %lf %lf %d", &r.size, &r.count, type,
               redop, &r.root, &r.time[0], &r.algbw[0], &r.busbw[0], &r.wrong[0], &r.time[1], &r.algbw[1],
               &r.busbw[1], &r.wrong[1]) == 13) {
      r.type = type;
      r.redop = redop;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

// Data rows of `out`, and in *wrong_rows those with a non-zero #wrong.
inline int countRows(const std::string& out, int* wrong_rows) {
  auto rows = parseRows(out);
  *wrong_rows = 0;
  for (const auto& r : rows) *wrong_rows += r.wrong[0] != 0 || r.wrong[1] != 0;
  return static_cast<int>(rows.size());
}

}  // namespace railkit::testing
