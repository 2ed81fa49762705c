#pragma once
// Runs the railkit binary under `timeout`, so a command that hangs on a FIFO
// fails its test (exit 124) instead of hanging the suite.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/run_command.h"
#include "support/test_support.h"

namespace railkit::testing {

struct CliRun {
  int status = -1;  // exit status; 124 when `timeout` had to stop it
  std::string out, err;
  double seconds = 0;
  // stderr is one line: what railkit promises for every usage/input error.
  bool oneErrorLine() const { return !err.empty() && err.find('\n') == err.size() - 1; }
};

// This test binary's scratch directory, removed when it exits.
inline const std::filesystem::path& cliScratch() {
  static BinaryScratchDir dir("railkit-cli");
  return dir.path();
}

// Writes `text` to `path`; a relative path lands in cliScratch().
inline std::string writeScratchFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path full = cliScratch() / path;
  std::ofstream(full, std::ios::binary) << text;
  return full.string();
}

// Runs `script` with sh under `timeout 60`; its stdout and stderr are kept.
inline CliRun runShell(const std::string& script, const std::filesystem::path& scratch) {
  auto script_path = scratch / "run.sh";
  auto err_path = scratch / "stderr.txt";
  std::ofstream(script_path) << script << "\n";
  std::string command = "timeout 60 sh " + script_path.string() + " 2>" + err_path.string();
  CliRun run;
  auto start = std::chrono::steady_clock::now();
  CmdRun captured = captureStdout(command);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.status = captured.rc;
  run.out = std::move(captured.out);
  std::ifstream in(err_path, std::ios::binary);
  run.err.assign(std::istreambuf_iterator<char>(in), {});
  return run;
}

// `args` is shell text after "railkit ".
inline CliRun runRailkit(const std::string& args, const std::filesystem::path& scratch = cliScratch()) {
  return runShell("exec " + railkitBinary() + " " + args, scratch);
}

inline std::string makeFifo(const std::filesystem::path& path) {
  std::filesystem::remove(path);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path.string();
}

}  // namespace railkit::testing
