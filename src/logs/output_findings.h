#pragma once
// Findings read from benchmark outputs (the NCCL-log findings live in
// nccl_log.h): wrong results or out-of-bounds values in an nccl-tests table,
// a perftest run that stopped on an error (its work-completion status decoded),
// and a table that missed its graded expectation.

#include <string>
#include <vector>

#include "core/finding.h"
#include "core/rule_info.h"
#include "logs/grade.h"
#include "logs/nccl_tests_table.h"
#include "logs/perftest.h"

namespace railkit::logs {

// The ids these findings carry, declared in output_findings.cc (for the logs
// catalogue: explain and --list-rules).
const std::vector<RuleInfo>& outputFindingRules();

std::vector<Finding> tableFindings(const NcclTestsTable& table, const std::string& file);
std::vector<Finding> perftestFindings(const PerftestResult& result, const std::string& file);
// nccl-tests-busbw-low for a failed grade; nothing otherwise.
std::vector<Finding> gradeFindings(const Grade& grade);

}  // namespace railkit::logs
