// Feeds arbitrary bytes, split into lines, to the NCCL log analyzer (two
// inputs, then the job-wide combination): no crash, hang or out-of-bounds
// read, and evidence, crashed processes and the per-rank view stay bounded
// whatever the input.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "logs/nccl/crash_line.h"
#include "logs/nccl_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  railkit::logs::NcclLogAnalyzer first("a.log"), second("b.log");
  uint64_t number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto& target = (number % 3 == 2) ? second : first;
    target.feedLine(text.substr(start, end - start), ++number);
    start = end + 1;
  }
  size_t crashed = 0;  // one finding per crashed process, their number capped
  for (const auto& f : first.findings()) {
    if (f.evidence.size() > railkit::logs::kMaxEvidencePerFinding + 1) __builtin_trap();
    crashed += f.id == "process-crash";
  }
  if (crashed > railkit::logs::nccl::CrashCollector::kMaxProcesses) __builtin_trap();
  auto facts = first.facts();
  if (facts.per_rank.ranks.size() > railkit::logs::kMaxRanksKept) __builtin_trap();
  for (const auto& r : facts.per_rank.ranks)
    if (r.nics.size() > 32 || r.net_devices.size() > 64) __builtin_trap();
  (void)railkit::logs::factsToJson(facts).dump();
  (void)railkit::findingsToJson(first.findings()).dump();
  (void)railkit::findingsToJson(second.findings()).dump();
  auto job = railkit::logs::combineJob({&first, &second});
  (void)job.facts.dump();
  return 0;
}
