// The GPU <-> NIC PCIe distance matrix (what `nvidia-smi topo -m` shows), one
// per distinct topology: a fleet of identical machines shows one matrix with
// the nodes that share it; an odd machine shows its own. Cells are coloured
// from PIX (same switch, best for GPUDirect RDMA) to SYS (across sockets).
#include <fmt/format.h>

#include <map>
#include <set>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

struct Topology {
  std::vector<std::string> gpus, nics;
  std::map<std::pair<std::string, std::string>, std::string> distance;
  std::vector<std::string> nodes;
};

const char* distanceClass(const std::string& d) {
  if (d == "PIX") return "d0";
  if (d == "PXB") return "d1";
  if (d == "PHB") return "d2";
  if (d == "NODE") return "d3";
  if (d == "SYS") return "d4";
  return "dx";
}

void addInventory(const std::string& node, const nlohmann::json& inventory,
                  std::map<std::string, Topology>& out) {
  const auto& topo = objectAt(inventory, "topology");
  const auto& pairs = arrayAt(topo, "gpu_nic");
  if (pairs.empty()) return;
  Topology t;
  std::set<std::string> seen_g, seen_n;
  std::string key;
  for (const auto& p : pairs) {
    std::string g = textAt(p, "gpu"), n = textAt(p, "nic"), d = textAt(p, "distance");
    if (seen_g.insert(g).second) t.gpus.push_back(g);
    if (seen_n.insert(n).second) t.nics.push_back(n);
    t.distance[{g, n}] = d;
    key += g + "\t" + n + "\t" + d + "\n";
  }
  auto [it, fresh] = out.emplace(key, std::move(t));
  it->second.nodes.push_back(node);
}

std::string matrix(const Topology& t) {
  std::string out = "<table class=\"topo\"><thead><tr><th></th>";
  for (const auto& n : t.nics) out += "<th>" + esc(n) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& g : t.gpus) {
    out += "<tr><th>" + esc(g) + "</th>";
    for (const auto& n : t.nics) {
      auto it = t.distance.find({g, n});
      std::string d = it == t.distance.end() ? "" : it->second;
      out += fmt::format("<td class=\"{}\">{}</td>", distanceClass(d), esc(d));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string renderTopology(const Documents& docs) {
  std::map<std::string, Topology> topologies;
  for (const auto& doc : docs) {
    if (doc.kind == "railkit.validate/v1")
      for (const auto& n : arrayAt(doc.json, "nodes"))
        if (n.is_object() && n.contains("inventory"))
          addInventory(textAt(n, "name"), n["inventory"], topologies);
    if (doc.kind == "railkit.inspect/v1")
      addInventory(doc.source, doc.json, topologies);  // "root" is "/" on every live node
  }
  if (topologies.empty()) return "";
  std::string body =
      "<ul class=\"legend\"><li><span class=\"chip d0\"></span>PIX one PCIe switch</li>"
      "<li><span class=\"chip d1\"></span>PXB several switches</li>"
      "<li><span class=\"chip d2\"></span>PHB through the host bridge</li>"
      "<li><span class=\"chip d3\"></span>NODE same NUMA node</li>"
      "<li><span class=\"chip d4\"></span>SYS across sockets</li></ul>\n";
  int i = 0;
  for (const auto& [key, t] : topologies) {
    std::string nodes;
    for (size_t k = 0; k < t.nodes.size() && k < 12; ++k) nodes += (k ? ", " : "") + esc(t.nodes[k]);
    if (t.nodes.size() > 12) nodes += fmt::format(" +{} more", t.nodes.size() - 12);
    body += fmt::format("<h3>topology {} of {}: {} node(s)</h3>\n<p>{}</p>\n{}", ++i, topologies.size(),
                        t.nodes.size(), nodes, matrix(t));
  }
  return section("topology", "GPU \u2194 NIC distance", body);
}

}  // namespace railkit::report
