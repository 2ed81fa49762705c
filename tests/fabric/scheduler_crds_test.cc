// What `railkit fabric --topology-out` writes for Volcano and Kueue is valid
// against their CRDs in ../shared/schemas/crds: the structural schema
// (types, patterns, lengths, item counts, bounds) and the CRDs'
// x-kubernetes-validations rules, which the API server runs on create and
// railkit evaluates itself (k8s/cel_rules.h). Every such rule of the two CRDs
// must be one railkit evaluates, so none passes unread.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fabric/ibnetdiscover.h"
#include "fabric/rails.h"
#include "fabric/scheduler_topology.h"
#include "fabric/tiers.h"
#include "fabric_text.h"
#include "k8s/cel_rules.h"
#include "k8s/manifest.h"
#include "k8s/render/emit.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::fabric {
namespace {

const char* const kCrdFiles[] = {"topology.volcano.sh_hypernodes.yaml", "kueue.x-k8s.io_topologies.yaml"};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

k8s::SchemaSet schedulerCrds() {
  std::vector<std::string> texts;
  for (const char* file : kCrdFiles)
    texts.push_back(slurp(railkit::testing::sharedDir() / "schemas/crds" / file));
  auto set = k8s::SchemaSet::fromTexts({}, texts);
  EXPECT_TRUE(set) << set.error().message;
  return std::move(*set);
}

// Each error of `object` (as YAML, the way railkit writes it) as "PATH: MESSAGE",
// and every CEL rule left unevaluated as "unevaluated PATH: RULE".
std::vector<std::string> problems(k8s::SchemaSet& crds, const nlohmann::json& object) {
  std::string yaml = k8s::render::emitYaml(object);
  auto manifest = k8s::loadManifest(yaml, "object.yaml");
  EXPECT_TRUE(manifest) << yaml;
  if (!manifest) return {"unreadable"};
  std::vector<std::string> unevaluated;
  auto errors = crds.validate((*manifest)->objects.at(0), &unevaluated);
  EXPECT_TRUE(errors.has_value()) << "no schema for " << object["apiVersion"] << " " << object["kind"];
  std::vector<std::string> out;
  if (errors)
    for (const auto& e : *errors) out.push_back(e.path + ": " + e.message);
  for (const auto& rule : unevaluated) out.push_back("unevaluated " + rule);
  std::string name = object["metadata"]["name"];
  if (!isDnsSubdomain(name)) out.push_back("metadata.name: '" + name + "' is not a DNS-1123 subdomain");
  return out;
}

SchedulerTopology topologyOf(const std::string& ibnetdiscover) {
  auto fabric = parseIbnetdiscover(ibnetdiscover, "fabric.txt");
  EXPECT_TRUE(fabric) << fabric.error().message;
  if (!fabric) return {};
  return schedulerTopology(*fabric, buildTiers(*fabric, buildRailView(*fabric)));
}

TEST(SchedulerCrds, HyperNodesAndKueueTopologyAreValid) {
  RAILKIT_REQUIRE_SHARED();
  auto crds = schedulerCrds();
  std::ifstream real(railkit::testing::sourceDir() / "tests/fixtures/fabric/topograph-su8-leaves.out");
  std::stringstream real_text;
  real_text << real.rdbuf();
  for (const auto& text : {railkit::testing::RailFabricText(32, 8, 4).text(), real_text.str()}) {
    auto topology = topologyOf(text);
    ASSERT_FALSE(topology.hypernodes.empty());
    for (const auto& object : topology.hypernodes)
      EXPECT_EQ(problems(crds, object), std::vector<std::string>{}) << object.dump();
    EXPECT_EQ(problems(crds, topology.kueue_topology), std::vector<std::string>{});
  }
}

// The checks are not a formality: each CRD rule and constraint catches the
// object that breaks it.
TEST(SchedulerCrds, BrokenObjectsAreCaught) {
  RAILKIT_REQUIRE_SHARED();
  auto crds = schedulerCrds();
  auto topology = topologyOf(railkit::testing::RailFabricText(4, 2, 2).text());
  ASSERT_EQ(topology.hypernodes.size(), 2u);
  const nlohmann::json block = topology.hypernodes[0];
  auto only = [&](nlohmann::json object) {
    auto found = problems(crds, object);
    return found.size() == 1 ? found[0] : "found " + std::to_string(found.size()) + " problems";
  };
  auto both = block;
  both["spec"]["members"][0]["selector"]["regexMatch"] = {{"pattern", "node.*"}};
  EXPECT_NE(only(both).find("Only one of ExactMatch, RegexMatch, or LabelMatch can be specified"),
            std::string::npos)
      << only(both);
  auto none = block;
  none["spec"]["members"][0]["selector"] = nlohmann::json::object();
  EXPECT_NE(only(none).find("Either ExactMatch or RegexMatch or LabelMatch must be specified"),
            std::string::npos)
      << only(none);
  auto empty = block;
  empty["spec"]["members"] = nlohmann::json::array();
  EXPECT_EQ(only(empty), "spec.members: has 0 items; at least 1 expected");
  auto upper = block;
  upper["spec"]["members"][0]["selector"]["exactMatch"]["name"] = "Node001";
  EXPECT_NE(only(upper).find("does not match the pattern"), std::string::npos) << only(upper);
  auto tier = block;
  tier["spec"]["tier"] = -1;
  EXPECT_EQ(only(tier), "spec.tier: -1 is below the minimum 0");
  auto kind = block;
  kind["spec"]["members"][0]["type"] = "Rack";
  EXPECT_NE(only(kind).find("is not one of"), std::string::npos) << only(kind);

  const nlohmann::json kueue = topology.kueue_topology;
  auto twice = kueue;
  twice["spec"]["levels"].push_back(twice["spec"]["levels"][0]);
  auto found = problems(crds, twice);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(found);  // unique, and the hostname not last
  EXPECT_NE(found[0].find("must be unique"), std::string::npos) << found[0];
  auto hostname_first = kueue;
  auto& levels = hostname_first["spec"]["levels"];
  std::swap(levels[0], levels[levels.size() - 1]);
  EXPECT_NE(only(hostname_first).find("kubernetes.io/hostname label can only be used at the lowest level"),
            std::string::npos)
      << only(hostname_first);
  auto bad_label = kueue;
  bad_label["spec"]["levels"][0]["nodeLabel"] = "network topology/block";
  EXPECT_NE(only(bad_label).find("does not match the pattern"), std::string::npos) << only(bad_label);
}

// Walks a CRD's schema for x-kubernetes-validations rules.
void collectRules(const nlohmann::json& node, std::vector<std::string>& rules) {
  if (node.is_object()) {
    if (auto it = node.find("x-kubernetes-validations"); it != node.end() && it->is_array())
      for (const auto& entry : *it)
        if (entry.contains("rule")) rules.push_back(entry["rule"].get<std::string>());
    for (const auto& [key, value] : node.items()) collectRules(value, rules);
  } else if (node.is_array()) {
    for (const auto& value : node) collectRules(value, rules);
  }
}

TEST(SchedulerCrds, EveryRuleOfTheirCrdsIsOneRailkitEvaluates) {
  RAILKIT_REQUIRE_SHARED();
  k8s::YamlNode empty;
  std::vector<std::string> rules;
  for (const char* file : kCrdFiles) {
    auto stream = k8s::parseYaml(slurp(railkit::testing::sharedDir() / "schemas/crds" / file), file);
    ASSERT_TRUE(stream) << stream.error().message;
    collectRules(k8s::yamlToJson(stream->documents.at(0).root), rules);
  }
  EXPECT_GE(rules.size(), 7u);  // 2 for HyperNode selectors, 3 + 3 for Kueue's two versions
  for (const auto& rule : rules)
    EXPECT_NE(k8s::evaluateCelRule(rule, empty), k8s::CelOutcome::kUnknownRule) << rule;
}

}  // namespace
}  // namespace railkit::fabric
