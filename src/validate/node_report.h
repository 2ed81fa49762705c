#pragma once
// A rank's phase-1 report as it travels to rank 0 (one JSON object in a
// bootstrap gather): its host, findings, counts, attributes, data NIC rate,
// inventory and LLDP neighbours (optional: an older railkit sends none). Rank 0 reads every report through
// parseNodeReport, which checks the shape member by member: a report from another railkit version, or bytes
// that are not a report, make that node fail with a message naming the JSON path, never rank 0 crash on a
// type it did not expect.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "validate/node_check.h"
#include "validate/run.h"

namespace railkit::validate {

// This rank's report.
nlohmann::json makeNodeReport(int rank, const NodeInput& node, const NodeCheck& check);

// Rank 0: the report of `rank`, with exactly the members and types
// makeNodeReport writes; when `blob` is not such a report, a node with no
// findings and "report_error" saying what was expected and found where.
nlohmann::json parseNodeReport(std::string_view blob, int rank);

}  // namespace railkit::validate
