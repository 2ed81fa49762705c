#pragma once
// The fabric as the subnet's own discovery prints it: every node (switch,
// channel adapter, router) with its connected ports and, for each port, the
// peer node and port at the other end of the cable and the link's active
// width and speed. `ibnetdiscover` writes this (and ibsim reads the same
// format as its net file); ibnetdiscover.h parses it. Nodes are kept by
// index: a link names its peer by index into Fabric::nodes, so the whole
// fabric is a few flat vectors even at thousands of HCAs.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace railkit::fabric {

inline constexpr std::size_t kNoNode = static_cast<std::size_t>(-1);

enum class NodeKind { kSwitch, kCa, kRouter, kUnknown };
const char* nodeKindName(NodeKind kind);

// One connected port of a node.
struct PortLink {
  int port = 0;                // this node's port number
  std::size_t peer = kNoNode;  // index of the node at the other end
  int peer_port = 0;
  int width = 0;       // active lanes (4 for "4xNDR"); 0 when not printed
  std::string speed;   // "NDR", "HDR", "SDR"... as printed; empty when not printed
  long line = 0;       // line of the input that describes it
  unsigned lid = 0;    // a CA port's own LID ("# lid 647 lmc 0 ..."); 0 when not printed
  std::string source;  // the capture that shows it when not Fabric::source (one LLDP capture per node)
};

struct Node {
  NodeKind kind = NodeKind::kUnknown;
  std::string id;           // as the input names it: "S-2c5eab0300b87b40", or ibsim's "leaf1"
  std::string description;  // the NodeDescription: "node017 mlx5_3", "MF0;leaf-r3:MQM9700/U1"
  int port_count = 0;       // ports the header declares; 0 when known only as a peer
  unsigned lid = 0;         // a switch's LID (its port 0: "... port 0 lid 73 lmc 0"); 0 when not printed
  long line = 0;            // header line; 0 when only a peer's port line names it
  std::vector<PortLink> ports;
  // Ports known by name rather than number (an Ethernet switch's "swp12" in
  // LLDP): port number -> name. Empty on InfiniBand.
  std::map<int, std::string> port_names;
};

// "12", or the port's name where the node has one ("swp12").
std::string portText(const Node& node, int port);

struct Fabric {
  std::string source;  // where it was read, for evidence ("ibnetdiscover.out")
  std::vector<Node> nodes;
};

// The rank of an InfiniBand speed name (SDR 1 ... XDR 9), so links compare;
// 0 for a name railkit does not know.
int speedRank(const std::string& speed);

// "4xNDR", or "" when neither is known.
std::string linkRate(const PortLink& link);

}  // namespace railkit::fabric
