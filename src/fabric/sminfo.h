#pragma once
// The parser of `sminfo` output (infiniband-diags): which subnet manager
// answers as master, seen from the node where sminfo ran.
//
//   sminfo: sm lid 1 sm guid 0x200000, activity count 218 priority 0 state 3 SMINFO_MASTER
//
// When no subnet manager answers, sminfo prints its failure instead
// ("sminfo: iberror: failed: query", after ibwarn lines on stderr), so a
// capture takes both streams: `sminfo > sm.txt 2>&1`. Several captures, from
// nodes on different parts of the fabric, show whether they all see the same
// master.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::fabric {

struct SmRecord {
  long line = 0;
  unsigned lid = 0;
  std::string guid;  // "0x200000", as printed
  uint64_t activity = 0;
  int priority = 0;
  int state = 0;           // 0 not active, 1 discovering, 2 standby, 3 master
  std::string state_name;  // "SMINFO_MASTER"
  std::string text;        // the line
};

struct SmCapture {
  std::string source;
  std::vector<SmRecord> records;
  long failure_line = 0;     // where sminfo said it failed; 0 when it did not
  std::string failure_text;  // "sminfo: iberror: failed: query"
};

inline constexpr int kSmMaster = 3;

// One capture of sminfo's output; an error naming the line for text that is
// neither sminfo's answer nor its failure, and for an empty capture.
Result<SmCapture> parseSminfo(std::string_view text, std::string source);
Result<SmCapture> readSminfoFile(const std::string& path);

}  // namespace railkit::fabric
