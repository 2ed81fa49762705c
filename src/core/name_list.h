#pragma once
// NCCL's interface and HCA selection syntax, shared by doctor (what a pod's
// environment selects), bench (--data-if/--ctrl-if) and lint.
//
//   "eth,ib"      names starting with eth or ib
//   "=eth0"       exactly eth0
//   "^docker,lo"  everything except names starting with docker or lo
//   "^=eth0"      everything except exactly eth0
//   "mlx5_0:1"    (NCCL_IB_HCA) device mlx5_0, port 1 only

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railkit {

struct NameListEntry {
  std::string name;
  std::optional<int> port;  // only with allow_ports
};

struct NameListSpec {
  bool exclude = false;  // leading '^'
  bool exact = false;    // leading '=' (after '^' if both)
  std::vector<NameListEntry> entries;
};

// Parses the syntax above. With allow_ports, "dev:port" entries keep their
// port; without, a ':' is part of the name.
NameListSpec parseNameList(std::string_view text, bool allow_ports = false);

// Whether `name` (and, when given, `port`) is selected by the spec.
bool nameListSelects(const NameListSpec& spec, std::string_view name, std::optional<int> port = std::nullopt);

}  // namespace railkit
