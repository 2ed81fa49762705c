#include "k8s/cel_rules.h"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "k8s/schema.h"

namespace railkit::k8s {
namespace {

// CEL's has(self.f): the field is set (a null is pruned by the API server).
bool celHas(const YamlNode& self, std::string_view field) {
  const YamlNode* value = self.get(field);
  return value != nullptr && value->type != YamlNode::Type::kNull;
}

int setCount(const YamlNode& self, std::initializer_list<std::string_view> fields) {
  int n = 0;
  for (auto f : fields) n += celHas(self, f);
  return n;
}

// Volcano HyperNode, spec.members[].selector.
bool oneSelectorSet(const YamlNode& self) {
  return setCount(self, {"exactMatch", "regexMatch", "labelMatch"}) >= 1;
}
bool atMostOneSelector(const YamlNode& self) {
  return setCount(self, {"exactMatch", "regexMatch", "labelMatch"}) <= 1;
}

// Kueue Topology, spec.levels: no two items equal (CEL compares them deeply).
bool itemsUnique(const YamlNode& self) {
  if (!self.isSeq()) return false;
  std::vector<nlohmann::json> seen;
  for (const auto& item : self.items) {
    auto value = yamlToJson(item);
    for (const auto& other : seen)
      if (other == value) return false;
    seen.push_back(std::move(value));
  }
  return true;
}

// Kueue Topology, spec.levels: kubernetes.io/hostname only as the last level.
bool hostnameOnlyLast(const YamlNode& self) {
  if (!self.isSeq()) return false;
  auto isHostname = [](const YamlNode& level) {
    const YamlNode* label = level.get("nodeLabel");
    return label != nullptr && label->isScalar() && label->value == "kubernetes.io/hostname";
  };
  bool any = false;
  for (const auto& level : self.items) any = any || isHostname(level);
  return !any || (!self.items.empty() && isHostname(self.items.back()));
}

using CelPredicate = bool (*)(const YamlNode&);

const std::map<std::string, CelPredicate>& knownCelRules() {
  static const std::map<std::string, CelPredicate> kRules = {
      {"has(self.exactMatch) || has(self.regexMatch) || has(self.labelMatch)", oneSelectorSet},
      {"(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch) ? 1 : 0) + (has(self.labelMatch) ? 1 : 0) <= "
       "1",
       atMostOneSelector},
      {"size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0", itemsUnique},
      {"size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel "
       "== "
       "'kubernetes.io/hostname'",
       hostnameOnlyLast},
  };
  return kRules;
}

bool readsOldSelf(std::string_view rule) {
  for (std::size_t at = rule.find("oldSelf"); at != std::string_view::npos;
       at = rule.find("oldSelf", at + 1)) {
    bool word_start =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(rule[at - 1])) || rule[at - 1] == '_');
    if (word_start) return true;
  }
  return false;
}

}  // namespace

std::string normalizeCelRule(std::string_view rule) {
  std::string out;
  bool space = false;
  for (char c : rule) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

CelOutcome evaluateCelRule(std::string_view rule, const YamlNode& self) {
  if (readsOldSelf(rule)) return CelOutcome::kTransitionRule;
  const auto& rules = knownCelRules();
  auto it = rules.find(normalizeCelRule(rule));
  if (it == rules.end()) return CelOutcome::kUnknownRule;
  return it->second(self) ? CelOutcome::kPassed : CelOutcome::kFailed;
}

}  // namespace railkit::k8s
