#pragma once
// Lint: rules that find the recurring mistakes of RDMA/NCCL/MPI manifests.
// Each rule is one file in rules/ and one line in rules/list.inc; a rule sees
// every manifest of the run at once (a SriovNetworkNodePolicy in one file
// declares the RDMA resource a Pod in another file requests) and appends
// findings carrying file, line, object (kind/name) and field path.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/rule_info.h"
#include "k8s/lint/dra_claims.h"
#include "k8s/manifest.h"

namespace railkit::k8s {

class SchemaSet;

struct LintInput {
  std::vector<std::unique_ptr<Manifest>> manifests;
  // Resource names that carry RDMA: the documented list plus what policies
  // in the input declare. Filled by prepareLintInput.
  std::set<std::string> rdma_resources;
  // The DRA claims the input declares and what each gives. Filled by prepareLintInput.
  DraCatalog dra;
  const SchemaSet* schemas = nullptr;  // nullptr: schema rule skipped with a note
};

// The same RuleInfo as doctor's rules and the logs catalogue, plus the check:
// a rule file defines {{id, severity, title, explain, fix}, check}, or
// {shared_rules::kX, check} for an id doctor raises too.
struct Rule : RuleInfo {
  void (*check)(const LintInput& input, std::vector<Finding>& out);
};

const std::vector<Rule>& allRules();

// Resource names known to expose RDMA devices without any policy in sight.
const std::vector<std::string>& knownRdmaResourcePrefixes();

// Collects rdma_resources and the DRA claims from the input.
void prepareLintInput(LintInput& input);

// Runs every rule; findings are sorted by file, line, id.
std::vector<Finding> runLint(const LintInput& input);

// A finding of `rule` located at `line` of `object`, with the rule's
// declared severity or (first form) one the check lowered for this case.
Finding lintFinding(const RuleInfo& rule, Severity lowered, const Object& object, long line, std::string path,
                    std::string message, std::string fix);
Finding lintFinding(const RuleInfo& rule, const Object& object, long line, std::string path,
                    std::string message, std::string fix);

}  // namespace railkit::k8s
