// Fuzzes what rank 0 of `railkit validate` reads from another rank: a
// phase-1 report (JSON in a bootstrap gather). Whatever the bytes, parsing
// must give a well-shaped node (or one with report_error), and the report,
// its JSON document and the human verdict built from it must not crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "validate/node_report.h"
#include "validate/report.h"
#include "validate/run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view blob(reinterpret_cast<const char*>(data), size);
  railkit::validate::ValidateConfig config;
  railkit::validate::Report report(config, 2);
  auto fuzzed = railkit::validate::parseNodeReport(blob, 1);
  nlohmann::json good{
      {"rank", 0},
      {"host", "node1"},
      {"findings", nlohmann::json::array()},
      {"counts", {{"nics_active", 8}, {"nics_expected", 8}, {"gpus", 8}, {"gpus_expected", nullptr}}},
      {"attributes", {{"net1 firmware", "28.39.1002"}}},
      {"attribute_labels", {{"net1 firmware", "mlx5_0 firmware"}}},
      {"nic_gbps", 400},
      {"nic_rate_source", "fuzz"},
      {"inventory", nlohmann::json::object()}};
  auto parsed_good = railkit::validate::parseNodeReport(good.dump(), 0);
  if (parsed_good.contains("report_error")) __builtin_trap();  // the well-formed report must pass
  report.setNodes({parsed_good, fuzzed}, {"node1", fuzzed.value("host", std::string("?")) + " (r1)"});
  auto doc = report.document();
  (void)doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)railkit::validate::formatVerdict(doc);
  return 0;
}
