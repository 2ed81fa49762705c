#pragma once
// The parser of `perfquery` output (infiniband-diags): the error counters of
// one port per block, read from the port's LID. A capture is any number of
// blocks, one per port queried:
//
//   # Port counters: Lid 3 port 2 (CapMask: 0x1300)
//   PortSelect:......................2
//   SymbolErrorCounter:..............42
//   LinkErrorRecoveryCounter:........0
//
// ibnetdiscover's output gives each LID its switch (or CA port), so a
// counter names the switch, the port and the node on its other end. A port
// read twice in one capture counts with its later block.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::fabric {

struct PortCounters {
  unsigned lid = 0;
  int port = 0;
  long line = 0;  // the block's header line
  std::map<std::string, uint64_t> values;
  std::map<std::string, long> lines;  // where each value was read
};

struct CounterCapture {
  std::string source;
  std::vector<PortCounters> ports;
};

// The error counters railkit checks, with the threshold above which a
// cumulative count is reported (ibqueryerrors' documented defaults).
struct ErrorCounter {
  const char* name;
  uint64_t threshold;
};
const std::vector<ErrorCounter>& errorCounters();

Result<CounterCapture> parsePerfquery(std::string_view text, std::string source);
Result<CounterCapture> readPerfqueryFile(const std::string& path);

}  // namespace railkit::fabric
