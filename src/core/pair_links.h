#pragma once
// The links of an all-pairs run (bench pairs, validate's links phase) in the
// two forms a document may hold them:
//   "links": [{"a", "b", "bw_gbps", "time_us", "slow"}, ...]   bench pairs,
//            and validate documents written before the compact form;
//   "link_rows": ["7.4 7.31 0.1", "7.8 0.1", "0.08"]           validate now:
//            row a holds the Gb/s per direction of links a-(a+1) .. a-(n-1),
//            space-separated, "-" where a link was not measured.
// At 1024 ranks the object form was most of a 45 MB document (about
// 90 bytes a link once pretty-printed); a row string costs about 6 bytes a
// link and stays one line under an indenting printer. The slow flag is not
// repeated in rows: "slow_links" lists those links with their exact figure.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit {

struct PairLinkEntry {
  int a = 0, b = 0;  // a < b
  double gbps = 0;   // per direction
  bool slow = false;
};

// Rows for n ranks (n - 1 strings). A link outside 0..n-1 is ignored.
std::vector<std::string> encodeLinkRows(int n, const std::vector<PairLinkEntry>& links);

// Row `a` of `n`: n - 1 - a figures ("-" for a link not measured, skipped).
// kInvalidInput naming the field that is not a finite, non-negative number
// or the count that does not match.
Result<std::vector<PairLinkEntry>> parseLinkRow(std::string_view row, int a, int n);

// The links of a pairs object in either form; kInvalidInput when a row is
// malformed (the message names the row). No links, no error.
Result<std::vector<PairLinkEntry>> readPairLinks(const nlohmann::json& pairs);

}  // namespace railkit
