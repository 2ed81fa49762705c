// fabric-sm-masters: more than one subnet manager is master.
#include <map>

#include "fabric/rules/helpers.h"

namespace railkit::fabric {
namespace {

std::vector<Finding> check(const FabricInput& in) {
  std::map<std::string, std::vector<std::pair<const SmCapture*, const SmRecord*>>> masters;  // guid -> seen
  for (const auto& c : in.sm)
    for (const auto& r : c.records)
      if (r.state == kSmMaster) masters[r.guid].push_back({&c, &r});
  if (masters.size() < 2) return {};
  std::string list;
  std::vector<Evidence> evidence;
  for (const auto& [guid, seen] : masters) {
    list += fmt::format("{}{} (lid {}, seen by {})", list.empty() ? "" : ", ", guid, seen.front().second->lid,
                        seen.front().first->source);
    for (const auto& [capture, record] : seen)
      evidence.push_back({capture->source, record->line, record->text});
  }
  return {makeFabricFinding(
      kSmMasters, "fabric",
      fmt::format(
          "{} subnet managers are master: {}; each programs its own LIDs and routes, so the fabric is "
          "split or its SMs do not see each other",
          masters.size(), list),
      std::move(evidence),
      "Keep one master: find the cable or switch that splits the fabric (ibnetdiscover from each side), or "
      "stop the extra SM; give the intended master the highest priority (opensm -p 15).")};
}

}  // namespace

extern const FabricCheck kSmMasters = {
    {"fabric-sm-masters", Severity::kError, "More than one subnet manager is master",
     R"(One subnet manager is master of an InfiniBand subnet; the others stay standby and take over when
it fails. Two masters mean the subnet is split (a cable or a switch between two halves is down, and
each half elected its own) or two SMs cannot reach each other: each assigns LIDs and routes for what
it sees, LIDs may clash, and traffic between the halves fails. `railkit fabric --sminfo FILE`
(repeatable) reads what `sminfo` printed on nodes in different parts of the fabric and reports
when they name different masters.)",
     R"(Fix: run ibnetdiscover from a node on each side to find the missing link, restore it, or stop the
extra SM; give the intended master the highest priority so it wins the election:
  opensm -p 15   (or sm_priority in opensm.conf))"},
    check};

}  // namespace railkit::fabric
