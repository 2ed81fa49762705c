#pragma once
// An Ethernet (RoCE) fabric as each node's LLDP neighbours show it: what
// lldpd's `lldpctl -f json` (or `-f json0`) printed on a node, one capture
// per node. Each neighbour names the switch (its system name, or its chassis
// id when it sends none) and the switch's port heard on one of the node's
// interfaces. lldpFabric() turns the captures of every node into the same
// Fabric the InfiniBand readers build, so the rail, port-count and tier
// checks run unchanged: a switch per chassis, an "HCA" per node interface
// described "<host> <interface>".
//
// lldpctl's json format changes shape with the number of interfaces (an
// object for one, a list for several) and with the sender (a chassis keyed by
// its name, or bare when it sends none); json0 keeps one shape, every value
// in a list. Both are read.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "fabric/topology.h"

namespace railkit::fabric {

struct LldpNeighbor {
  std::string interface;     // the node's interface it was heard on ("eth3", "ens1f0np0")
  std::string chassis_name;  // the switch's system name ("leaf-r3"); empty when it sends none
  std::string chassis_id;    // "mac 0c:42:a1:00:00:01": id type and value
  std::string port_id;       // the switch's port ("swp12", "Ethernet1/28")
  std::string port_id_type;  // "ifname", "local", "mac", ...
  std::string port_descr;    // the port's description, when sent
  // The port as an operator names it: the id when it is a name (ifname,
  // local), else the description (lldpd on Linux sends the MAC as the id and
  // the interface name as the description), else the id.
  std::string port_name;
  std::string path;  // where in the document: "lldp.interface[2].eth3"
  // The RDMA device behind the interface ("mlx5_3"), when the node knows it
  // (validate reads it from the node's inventory): it then names the rail,
  // as on InfiniBand; empty: the interface does.
  std::string device;
};

struct LldpCapture {
  std::string source;  // the file
  std::string host;    // the node it was taken on
  std::vector<LldpNeighbor> neighbors;
};

// One node's capture; `host` names the node. An error names the source and
// the JSON path of what is not lldpctl's output.
Result<LldpCapture> parseLldpctlJson(std::string_view text, std::string source, std::string host);

// `spec` is FILE, whose name without its extension is the node's
// ("node017.json"), or HOST=FILE.
Result<LldpCapture> readLldpFile(const std::string& spec);

// The fabric the captures describe. `interfaces`, when not empty, keeps only
// those interfaces (or devices) of each node (the rails, not the management
// port); `source` names the whole for the report. A node's port is
// "<host> <device>" where the neighbour knows its device, else
// "<host> <interface>".
Fabric lldpFabric(const std::vector<LldpCapture>& captures, const std::vector<std::string>& interfaces = {},
                  std::string source = "lldp");

// The rail order of the captures' interfaces when none is given: every
// interface name heard on, in natural order (eth2 before eth10).
std::vector<std::string> lldpInterfaces(const std::vector<LldpCapture>& captures);

}  // namespace railkit::fabric
