#pragma once
// Running a shell command line and reading its output (tests/cli/cli_run.h
// builds on it), and for the bench tests, reading the nccl-tests-style data
// rows of its output with those whose #wrong columns are not zero.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace railkit::testing {

struct CmdRun {
  int rc = -1;  // exit status; 124 when `timeout` had to stop it; -1 when it could not run
  std::string out;
};

// Runs the shell command line `line` as given; its stdout and exit status
// (128 + N when signal N ended it, as a shell reports it).
inline CmdRun captureStdout(const std::string& line) {
  CmdRun r;
  FILE* p = popen(line.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return r;
}

// `cmd` with its stderr in the output. With `timeout_seconds` it runs under
// `timeout` (it must then start with a program, not VAR=value assignments).
inline CmdRun runCommand(const std::string& cmd, int timeout_seconds = 0) {
  std::string line = timeout_seconds > 0 ? "timeout " + std::to_string(timeout_seconds) + " " + cmd : cmd;
  return captureStdout(line + " 2>&1");
}

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
