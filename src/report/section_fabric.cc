// The fabric as `railkit fabric` read it: the rails-by-leaves picture (one
// row per rail, one column per leaf switch, each cell the rail's HCAs on that
// leaf) in which a cable on another rail's leaf stands out, the tiers the
// schedulers were given, and the fabric's findings beside it. The verdict
// section counts the same findings.
#include <fmt/format.h>

#include <map>
#include <set>

#include "report/html.h"
#include "report/sections.h"

namespace railkit::report {
namespace {

// Past this many leaves a row lists its leaves instead of a column each.
constexpr std::size_t kMatrixMaxLeaves = 32;

std::string fabricMatrix(const nlohmann::json& rails) {
  std::set<std::string> leaf_set;
  for (const auto& r : rails)
    for (const auto& c : arrayAt(r, "leaves")) leaf_set.insert(textAt(c, "leaf"));
  std::string out = "<table class=\"fabric\"><thead><tr><th>rail</th><th>device</th>";
  for (const auto& leaf : leaf_set) out += "<th>" + esc(leaf) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& r : rails) {
    std::map<std::string, const nlohmann::json*> cells;
    for (const auto& c : arrayAt(r, "leaves")) cells[textAt(c, "leaf")] = &c;
    out += fmt::format("<tr><th>{}</th><td>{}</td>", esc(textAt(r, "rail")), esc(textAt(r, "device")));
    for (const auto& leaf : leaf_set) {
      auto it = cells.find(leaf);
      if (it == cells.end()) {
        out += "<td></td>";
      } else if (boolAt(*it->second, "stray")) {
        out += fmt::format("<td class=\"stray\" title=\"a cable on another rail's leaf\">{} &#9888;</td>",
                           esc(textAt(*it->second, "hcas")));
      } else {
        out += "<td class=\"home\">" + esc(textAt(*it->second, "hcas")) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string fabricChips(const nlohmann::json& rails) {
  std::string out =
      "<table class=\"fabric\"><thead><tr><th>rail</th><th>device</th><th>leaves (HCAs)</th>"
      "</tr></thead><tbody>\n";
  for (const auto& r : rails) {
    std::string cells;
    for (const auto& c : arrayAt(r, "leaves"))
      cells += fmt::format("<span class=\"{}\">{} &times;{}</span> ", boolAt(c, "stray") ? "stray" : "home",
                           esc(textAt(c, "leaf")), esc(textAt(c, "hcas")));
    out += fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td></tr>\n", esc(textAt(r, "rail")),
                       esc(textAt(r, "device")), cells);
  }
  return out + "</tbody></table>\n";
}

std::string fabricTiers(const nlohmann::json& list) {
  std::string out;
  for (const auto& t : list) {
    const auto& groups = arrayAt(t, "groups");
    std::string names;
    for (std::size_t g = 0; g < groups.size() && g < 8; ++g)
      names += (g ? ", " : "") + esc(textAt(groups[g], "name"));
    if (groups.size() > 8) names += fmt::format(" +{} more", groups.size() - 8);
    out += fmt::format("<li>{}: {} group(s): {}</li>", esc(textAt(t, "name")), groups.size(), names);
  }
  return out.empty() ? "" : "<p>Tiers for the schedulers:</p><ul>" + out + "</ul>\n";
}

std::string fabricFindings(const nlohmann::json& findings) {
  std::string out;
  for (const auto& f : findings) {
    std::string severity = textAt(f, "severity");
    out += fmt::format("<li><span class=\"sev {}\">{}</span> <code>{}</code> {}: {}</li>", esc(severity),
                       esc(severity), esc(textAt(f, "id")), esc(textAt(f, "subject")),
                       esc(textAt(f, "message")));
  }
  return out.empty() ? "<p>no finding</p>\n" : "<ul class=\"fabric-findings\">" + out + "</ul>\n";
}

}  // namespace

std::string renderFabric(const Documents& docs) {
  std::string body;
  for (const auto& doc : docs) {
    if (doc.kind != "railkit.fabric/v1") continue;
    const auto& shape = objectAt(doc.json, "fabric");
    const auto& rails = arrayAt(doc.json, "rails");
    std::set<std::string> leaves;
    for (const auto& r : rails)
      for (const auto& c : arrayAt(r, "leaves")) leaves.insert(textAt(c, "leaf"));
    body +=
        fmt::format("<h3>{}</h3>\n<p>{} switches ({} leaves), {} hosts, {} rails</p>\n",
                    esc(textAt(doc.json, "source")), esc(textAt(shape, "switches")),
                    esc(textAt(shape, "leaves")), esc(textAt(shape, "hosts")), esc(textAt(shape, "rails")));
    if (!rails.empty())
      body +=
          "<p>Rails by leaves: HCAs of each rail on each leaf; &#9888; marks cables on another rail's "
          "leaf.</p>\n" +
          (leaves.size() <= kMatrixMaxLeaves ? fabricMatrix(rails) : fabricChips(rails));
    body += fabricTiers(arrayAt(doc.json, "tiers"));
    body += fabricFindings(arrayAt(doc.json, "findings"));
  }
  return body.empty() ? "" : section("fabric", "Fabric", body);
}

}  // namespace railkit::report
