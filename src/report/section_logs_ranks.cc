// The NCCL logs section's per-rank table (the `per_rank` list of a logs
// document's job, docs/logs.md): which host each rank ran on, the transport
// its channels used, its NICs, GPUDirect RDMA and its channels per kind. A
// job of a few nodes gets a row per rank; past kRankRowsMax ranks identical
// rows are grouped ("ranks 0-7, 16-23 on 2 hosts"), largest group first, so
// a 4096-rank job stays a short table and the odd ranks are the last rows.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

std::string listText(const nlohmann::json& list, size_t limit) {
  std::string out;
  size_t n = 0;
  if (!list.is_array()) return out;
  for (const auto& v : list) {
    if (n++ == limit) return out + fmt::format(" +{} more", list.size() - limit);
    out += (out.empty() ? "" : ", ") + text(v);
  }
  return out;
}

// "mlx5_0:1/IB" -> "mlx5_0": the port and link layer repeat on every NIC.
std::string nicsText(const nlohmann::json& nics) {
  std::string out;
  if (!nics.is_array()) return out;
  size_t n = 0;
  for (const auto& v : nics) {
    if (n++ == 8) return out + fmt::format(" +{} more", nics.size() - 8);
    std::string name = text(v);
    if (name.find(":1/") != std::string::npos) name = name.substr(0, name.find(":1/"));
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string transportCell(const nlohmann::json& r) {
  std::string t = textAt(r, "transport");
  const auto& ch = objectAt(r, "channels");
  if (t.empty()) return numberAt(ch, "P2P") + numberAt(ch, "SHM") > 0 ? "local only (P2P/SHM)" : "";
  return t.find("NET/Socket") != std::string::npos ? "<b class=\"bad\">" + esc(t) + "</b>" : esc(t);
}

std::string gdrCell(const nlohmann::json& r) {
  auto it = r.find("gdr");
  if (it == r.end() || !it->is_boolean()) return "";
  return it->get<bool>() ? "yes" : "<b class=\"bad\">no</b>";
}

std::string channelsText(double net, double p2p, double shm, double other) {
  std::string out;
  auto add = [&](const char* kind, double n) {
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", kind, num(n, 0));
  };
  add("NET", net);
  add("P2P", p2p);
  add("SHM", shm);
  add("other", other);
  return out;
}

std::string deviceText(const nlohmann::json& r) {
  std::string dev = textAt(r, "cuda_dev");
  if (dev.empty()) dev = textAt(r, "dev");
  std::string bus = textAt(r, "bus_id");
  return bus.empty() ? dev : dev + " (" + bus + ")";
}

// "0-7, 16-23" from sorted rank numbers, at most `limit` ranges shown.
std::string rangesText(const std::vector<uint64_t>& ranks, size_t limit = 8) {
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (shown++ == limit) return out + fmt::format(", +{} more", ranks.size() - i);
    out += (out.empty() ? "" : ", ") +
           (i == j ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]));
    i = j + 1;
  }
  return out;
}

struct Group {
  const nlohmann::json* first = nullptr;
  std::vector<uint64_t> ranks;
  size_t members = 0;
  std::set<std::string> hosts;
  double net = 0, p2p = 0, shm = 0, other = 0;
};

std::string groupedRows(const nlohmann::json& list) {
  std::map<std::string, Group> groups;
  for (const auto& r : list) {
    if (!r.is_object()) continue;
    std::string key = textAt(r, "transport") + "|" + gdrCell(r) + "|" + listText(arrayAt(r, "nics"), 64);
    Group& g = groups[key];
    if (!g.first) g.first = &r;
    ++g.members;
    auto rank = r.find("rank");
    if (rank != r.end() && rank->is_number_unsigned()) g.ranks.push_back(rank->get<uint64_t>());
    if (g.hosts.size() < 100000) g.hosts.insert(textAt(r, "host"));
    const auto& ch = objectAt(r, "channels");
    g.net += numberAt(ch, "NET");
    g.p2p += numberAt(ch, "P2P");
    g.shm += numberAt(ch, "SHM");
    g.other += numberAt(ch, "other");
  }
  std::vector<Group*> order;
  for (auto& [key, g] : groups) {
    std::sort(g.ranks.begin(), g.ranks.end());
    order.push_back(&g);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Group* a, const Group* b) { return a->members > b->members; });
  std::string rows;
  size_t shown = 0;
  for (const Group* g : order) {
    if (shown++ == kRankGroupsMax) {
      rows += fmt::format("<tr><td colspan=\"6\">{} more group(s) of ranks not shown</td></tr>\n",
                          order.size() - kRankGroupsMax);
      break;
    }
    std::string who = g->ranks.empty() ? "" : "ranks " + rangesText(g->ranks);
    if (g->members > g->ranks.size())
      who +=
          fmt::format("{}{} without a rank number", who.empty() ? "" : " and ", g->members - g->ranks.size());
    std::string hosts;
    size_t n = 0;
    for (const auto& h : g->hosts) {
      if (n++ == 3) {
        hosts += ", ...";
        break;
      }
      hosts += (hosts.empty() ? "" : ", ") + h;
    }
    rows += fmt::format(
        "<tr data-ranks=\"{}\"><td>{}</td><td>{} host(s): {}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        g->members, esc(who), g->hosts.size(), esc(hosts), transportCell(*g->first),
        esc(nicsText(arrayAt(*g->first, "nics"))), gdrCell(*g->first),
        esc(channelsText(g->net, g->p2p, g->shm, g->other)));
  }
  return rows;
}

std::string rankRows(const nlohmann::json& list) {
  std::string rows;
  for (const auto& r : list) {
    if (!r.is_object()) continue;
    const auto& ch = objectAt(r, "channels");
    std::string rank = textAt(r, "rank");
    std::string where = textAt(r, "host"), pid = textAt(r, "pid");
    if (!pid.empty()) where.append(":").append(pid);
    rows += fmt::format(
        "<tr data-rank=\"{0}\"><td>{0}</td><td>{1}</td><td>{2}</td>"
        "<td>{3}</td><td>{4}</td><td>{5}</td><td>{6}</td></tr>\n",
        esc(rank.empty() ? "?" : rank), esc(where), esc(deviceText(r)), transportCell(r),
        esc(nicsText(arrayAt(r, "nics"))), gdrCell(r),
        esc(channelsText(numberAt(ch, "NET"), numberAt(ch, "P2P"), numberAt(ch, "SHM"),
                         numberAt(ch, "other"))));
  }
  return rows;
}

}  // namespace

std::string renderRankTable(const nlohmann::json& facts) {
  const auto& list = arrayAt(facts, "per_rank");
  if (list.empty()) return "";
  double not_kept = numberAt(facts, "per_rank_not_kept");
  std::string note = not_kept > 0 ? fmt::format("; {} more not kept", num(not_kept, 0)) : "";
  if (list.size() <= kRankRowsMax)
    return fmt::format(
        "<table class=\"numbers ranks\"><caption>per rank ({} rank(s) with lines of their own{})</caption>"
        "<thead><tr><th>rank</th><th>host:pid</th><th>GPU (busId)</th><th>transport</th><th>NICs</th>"
        "<th>GPUDirect RDMA</th><th>channels</th></tr></thead><tbody>\n{}</tbody></table>\n",
        list.size(), note, rankRows(list));
  return fmt::format(
      "<table class=\"numbers ranks grouped\"><caption>per rank, identical ranks grouped ({} rank(s) with "
      "lines of their own{})</caption><thead><tr><th>ranks</th><th>hosts</th><th>transport</th><th>NICs</th>"
      "<th>GPUDirect RDMA</th><th>channels (all ranks of the "
      "group)</th></tr></thead><tbody>\n{}</tbody></table>\n",
      list.size(), note, groupedRows(list));
}

}  // namespace railkit::report
