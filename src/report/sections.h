#pragma once
// The sections of the page, one file each, in the order the page shows them
// (page.cc lists them in one table). A section returns "" when none of the
// documents holds its data, so the page shows only what it can draw.

#include <string>
#include <vector>

#include "report/inputs.h"

namespace railkit::report {

using Documents = std::vector<Document>;

std::string renderVerdict(const Documents& docs);   // section_verdict.cc
std::string renderBusbw(const Documents& docs);     // section_busbw.cc
std::string renderP2p(const Documents& docs);       // section_p2p.cc
std::string renderPairs(const Documents& docs);     // section_pairs.cc
std::string renderFleet(const Documents& docs);     // section_fleet.cc
std::string renderTopology(const Documents& docs);  // section_topology.cc
std::string renderFabric(const Documents& docs);    // section_fabric.cc
std::string renderNcclLogs(const Documents& docs);  // section_logs.cc

// The logs section's per-rank table of a logs document's job facts
// (section_logs_ranks.cc): a row per rank up to kRankRowsMax ranks, past it
// identical ranks grouped, at most kRankGroupsMax groups.
std::string renderRankTable(const nlohmann::json& job_facts);
inline constexpr size_t kRankRowsMax = 64;
inline constexpr size_t kRankGroupsMax = 64;

// Past this many nodes the pairs heatmap becomes per-node bars plus the
// slowest links (a 1024-node matrix is 10^6 cells).
inline constexpr size_t kHeatmapMaxNodes = 64;

// The kind without its prefix and version ("validate"), for labels.
std::string shortKind(const std::string& kind);

}  // namespace railkit::report
