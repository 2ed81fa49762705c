#pragma once
// The parser of `ibnetdiscover` output (infiniband-diags), the topology file
// every InfiniBand fabric can print and ibsim reads as its net file:
//
//   switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
//   Switch  65 "S-2c5eab0300b87b40"  # "MF0;leaf-r3:MQM9701/U1" enhanced port 0 lid 73 lmc 0
//   [1]  "H-e09d7303007a4bd8"[1](e09d7303007a4bd8)  # "node017 mlx5_3" lid 647 4xNDR
//   [35] "S-2c5eab0300c26280"[32]  # "MF0;spine-02:MQM9701/U1" lid 236 4xNDR
//
//   Ca  1 "H-e09d7303007a4bd8"  # "node017 mlx5_3"
//   [1](e09d7303007a4bd8)  "S-2c5eab0300b87b40"[1]  # lid 647 lmc 0 "MF0;leaf-r3:MQM9701/U1" lid 73 4xNDR
//
// A record is a node header (Switch, Ca, Rt; ibsim's Hca too) followed by one
// line per connected port; key=value lines, comments and blank lines sit
// between records, and `-g` grouping adds Chassis lines. It streams: one line
// at a time, so a reader never holds more than the fabric it builds.
//
// Input that is not such a file is an error naming the line: binary bytes, a
// line that is none of the above, a port outside a record or beyond the
// node's port count, a node described twice, a port cabled to itself, and two
// lines that disagree about one cable ("A[1] is cabled to B[2]" while B's
// record says B[2] goes elsewhere). A file that ends at a line boundary but
// lacks some records (an excerpt) is read as far as it goes: a node only a
// peer's line names is kept with that line's description, and each cable is
// recorded at both of its ends.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/result.h"
#include "fabric/topology.h"

namespace railkit::fabric {

class IbnetdiscoverParser {
 public:
  // `source` names the input in errors and in the fabric ("ib.out").
  explicit IbnetdiscoverParser(std::string source);
  // The next line, without its newline; `number` is 1-based. An error stops
  // the parse: later calls are not expected.
  Status line(std::string_view text, long number);
  // The fabric, once every line was given.
  Result<Fabric> finish() &&;

 private:
  Status header(std::string_view text, long number);
  Status port(std::string_view text, long number);
  std::size_t nodeFor(std::string_view id);
  Error at(long number, const std::string& message) const;

  Fabric fabric_;
  std::unordered_map<std::string, std::size_t> index_;
  std::size_t current_ = kNoNode;  // the record whose port lines follow
  std::size_t records_ = 0;
};

// The whole text at once (tests, fuzzing): the same result as streaming it.
Result<Fabric> parseIbnetdiscover(std::string_view text, std::string source);

// Reads a file the user named ("-": standard input) and parses it.
Result<Fabric> readIbnetdiscoverFile(const std::string& path);

}  // namespace railkit::fabric
