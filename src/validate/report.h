#pragma once
// Rank 0's record of a validate run, phase by phase, and the verdict it
// comes to: the JSON document (`validate --json`, docs/schemas/
// railkit.validate.v1.json) and the failure lines.
//   pass        every node passes phase 1, the fabric their LLDP shows has
//               no error, no outlier, no slow link or suspect node, every
//               collective meets its expectation;
//   fail        any of those is not so;
//   incomplete  a peer was lost (or the data plane never came up) before
//               the last phase ended; what was measured is kept.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/run.h"
#include "bench/transport.h"
#include "validate/consistency.h"
#include "validate/fabric_lldp.h"
#include "validate/subnet_plan.h"

namespace railkit::validate {

struct ValidateConfig;

class Report {
 public:
  Report(const ValidateConfig& config, int ranks);

  // Phase 1: the reports as gathered (rank order) and each node's label.
  void setNodes(std::vector<nlohmann::json> reports, std::vector<std::string> labels);
  const std::vector<nlohmann::json>& nodes() const { return nodes_; }
  int nodesWithErrors() const;
  // Phase 1 on rank 0: the Ethernet fabric from the nodes' LLDP; its notes
  // join the run's.
  void setFabric(LldpFabricCheck fabric);
  // Phase 2.
  void setOutliers(std::vector<Outlier> outliers);
  void setSubnetPlans(std::vector<RailPlan> plans) { subnet_plans_ = std::move(plans); }
  // Where each rank's data plane is (host, interface, address).
  void setPeers(const bench::Transport& transport);
  // Phase 3: bench pairs' document and its slow-link / suspect-node lines.
  void setPairs(const nlohmann::json& pairs, const std::vector<std::string>& failures);
  // Phase 4's sweep as cut to its time budget (run.cc's describePlan).
  void setSizing(nlohmann::json sizing) { sizing_ = std::move(sizing); }
  // Phase 4.
  void setCollectives(const bench::CollectivesOutcome& outcome, const bench::BenchConfig& graded_by);

  // Wall time of a phase on rank 0 ("node" includes the rendezvous, "connect"
  // is the data plane's setup), for docs/validate.md's cost per round and node.
  void setSeconds(const std::string& phase, double seconds);

  void note(const std::string& line);                  // a remark, not a failure
  void skip(const std::string& why);                   // --fail-fast
  void incomplete(int phase, const std::string& why);  // a lost peer

  // Any failure so far (--fail-fast asks after phase 2).
  bool failed() const;
  std::string verdict() const;
  std::vector<std::string> failures() const;
  nlohmann::json document() const;

 private:
  std::string nodeVerdict(std::size_t index) const;

  int ranks_;
  nlohmann::json settings_;
  std::vector<nlohmann::json> nodes_;
  std::vector<std::string> labels_;
  std::vector<Outlier> outliers_;  // the subnet plan's among them
  std::vector<RailPlan> subnet_plans_;
  nlohmann::json fabric_;  // null unless analysed
  std::vector<std::string> fabric_failures_;
  nlohmann::json pairs_;  // null until phase 3 ran
  std::vector<std::string> pair_failures_;
  std::vector<int> suspect_ranks_;
  nlohmann::json sizing_;  // null until phase 4 was sized
  nlohmann::json collectives_ = nlohmann::json::array();
  std::vector<std::string> collective_failures_;
  nlohmann::json line_rate_;  // null unless --expect-line-rate
  std::vector<std::string> notes_;
  std::string incomplete_;  // why, when a phase did not finish
  std::map<std::string, double> seconds_;
};

// The short human verdict rank 0 prints at the end, from the document:
// nodes, then links, then collectives, then every failure line.
std::string formatVerdict(const nlohmann::json& document);

}  // namespace railkit::validate
