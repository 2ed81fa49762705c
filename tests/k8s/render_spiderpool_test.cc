// cni spiderpool (docs/render.md, "Spiderpool"): the rdma-shared and sriov
// modes through Spiderpool's SpiderMultusConfig and SpiderIPPool, with seed
// 003's two subnet plans, valid against the Spiderpool CRDs and lint clean;
// plans that do not fit are refused in one line, exit 2.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "../cli/cli_run.h"
#include "core/ipv4.h"
#include "k8s/lint/lint.h"
#include "k8s/render/parts.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

Profile spiderProfile(const std::string& mode, const std::string& fabric, size_t rails) {
  Profile profile;
  profile.image = "registry.example.com/nccl:1";
  profile.name = "job";
  profile.mode = mode;
  profile.fabric = fabric;
  profile.cni = "spiderpool";
  profile.job_token = "fixed-job-token-for-tests-0123456789";
  profile.ssh_private_key = "-----BEGIN EC PRIVATE KEY-----\nfixed\n-----END EC PRIVATE KEY-----\n";
  profile.ssh_public_key = "ecdsa-sha2-nistp256 AAAAfixed railkit-test\n";
  for (size_t i = 0; i < rails; ++i)
    profile.data_interfaces.push_back("ens" + std::to_string(i + 1) + "f0np0");
  return profile;
}

// Seed 003's exclusive plan: 8 nodes, 8 rails, rail i in 172.17.i.0/24, a /27 per node.
Profile seedExclusive(const std::string& mode) {
  Profile profile = spiderProfile(mode, "roce", 8);
  profile.nodes = 8;
  profile.subnets.plan = "exclusive";
  for (int i = 0; i < 8; ++i) {
    profile.subnets.rail_ranges.push_back("172.17." + std::to_string(i) + ".0/24");
    profile.subnets.node_names.push_back("node" + std::to_string(i + 1));
  }
  return profile;
}

std::vector<RenderedObject> renderOrFail(const Profile& profile) {
  auto objects = renderProfile(profile);
  EXPECT_TRUE(objects) << (objects ? "" : objects.error().message);
  return objects ? *objects : std::vector<RenderedObject>{};
}

std::vector<const json*> ofKind(const std::vector<RenderedObject>& objects, const std::string& kind) {
  std::vector<const json*> out;
  for (const auto& object : objects)
    if (object.object["kind"] == kind) out.push_back(&object.object);
  return out;
}

// The worker pod specs: where the launchers put the rail annotation.
void collectTemplates(const json& node, std::vector<json>& out) {
  if (node.is_object()) {
    if (node.contains("metadata") && node.contains("spec") && node["spec"].contains("containers"))
      out.push_back(node);
    for (const auto& [key, value] : node.items()) collectTemplates(value, out);
  } else if (node.is_array()) {
    for (const auto& value : node) collectTemplates(value, out);
  }
}

std::vector<Finding> lintRendered(const std::vector<RenderedObject>& objects) {
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  EXPECT_TRUE(schemas) << schemas.error().message;
  if (!schemas) return {};
  auto manifest = loadManifest(toYaml(objects), "rendered.yaml");
  EXPECT_TRUE(manifest) << manifest.error().message;
  if (!manifest) return {};
  LintInput input;
  input.manifests.push_back(std::move(*manifest));
  input.schemas = &*schemas;
  prepareLintInput(input);
  return runLint(input);
}

// Each rail's SpiderMultusConfig names exactly that rail's pools, and each
// pool exists; returns the pools by rail.
std::map<size_t, std::vector<const json*>> poolsByRail(const std::vector<RenderedObject>& objects,
                                                       const Profile& profile) {
  std::map<std::string, const json*> pools;
  for (const json* pool : ofKind(objects, "SpiderIPPool")) pools[(*pool)["metadata"]["name"]] = pool;
  std::map<size_t, std::vector<const json*>> out;
  auto configs = ofKind(objects, "SpiderMultusConfig");
  EXPECT_EQ(configs.size(), profile.data_interfaces.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    const json& spec = (*configs[i])["spec"];
    std::string type = spec["cniType"];
    const json& cni = spec[type == "ib-sriov" ? "ibsriov" : type];
    for (const json& name : cni["ippools"]["ipv4"]) {
      EXPECT_TRUE(pools.count(name.get<std::string>())) << name;
      if (pools.count(name.get<std::string>())) out[i].push_back(pools[name.get<std::string>()]);
    }
  }
  return out;
}

TEST(K8sRenderSpiderpool, SharedRdmaIsMacvlanPerRailWithItsOwnSharedResource) {
  Profile profile = spiderProfile("rdma-shared", "roce", 2);
  auto objects = renderOrFail(profile);
  auto maps = ofKind(objects, "ConfigMap");
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ((*maps[0])["metadata"]["name"], "spiderpool-rdma-shared-device-plugin");
  json config = json::parse((*maps[0])["data"]["config.json"].get<std::string>());
  ASSERT_EQ(config["configList"].size(), 2u);
  auto configs = ofKind(objects, "SpiderMultusConfig");
  ASSERT_EQ(configs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const json& entry = config["configList"][i];
    EXPECT_EQ(entry["selectors"]["ifNames"], json::array({profile.data_interfaces[i]}));
    const json& spec = (*configs[i])["spec"];
    EXPECT_EQ(spec["cniType"], "macvlan");
    EXPECT_EQ(spec["macvlan"]["master"], json::array({profile.data_interfaces[i]}));
    std::string resource =
        entry["resourcePrefix"].get<std::string>() + "/" + entry["resourceName"].get<std::string>();
    EXPECT_EQ(spec["macvlan"]["rdmaResourceName"], resource);
    EXPECT_EQ((*configs[i])["metadata"]["namespace"], profile.ns);
  }
  auto pools = poolsByRail(objects, profile);
  ASSERT_EQ(pools.size(), 2u);
  std::set<std::string> subnets;
  for (auto& [rail, list] : pools) {
    ASSERT_EQ(list.size(), 1u);
    EXPECT_FALSE((*list[0])["spec"].contains("nodeAffinity"));
    subnets.insert((*list[0])["spec"]["subnet"].get<std::string>());
  }
  EXPECT_EQ(subnets.size(), 2u);
  std::vector<json> templates;
  for (const auto& object : objects) collectTemplates(object.object, templates);
  bool annotated = false;
  for (const json& t : templates) {
    if (!t["metadata"].contains("annotations")) continue;
    EXPECT_EQ(t["metadata"]["annotations"]["k8s.v1.cni.cncf.io/networks"], "job-rail0@net1,job-rail1@net2");
    const json& limits = t["spec"]["containers"][0]["resources"]["limits"];
    EXPECT_EQ(limits["spidernet.io/rdma_shared_a0"], 1);
    EXPECT_EQ(limits["spidernet.io/rdma_shared_a1"], 1);
    annotated = true;
  }
  EXPECT_TRUE(annotated);
}

TEST(K8sRenderSpiderpool, IsolatedRdmaIsSriovOnRoceAndIbSriovOnInfiniband) {
  for (const char* fabric : {"roce", "infiniband"}) {
    Profile profile = spiderProfile("sriov", fabric, 2);
    auto objects = renderOrFail(profile);
    auto policies = ofKind(objects, "SriovNetworkNodePolicy");
    auto configs = ofKind(objects, "SpiderMultusConfig");
    ASSERT_EQ(policies.size(), 2u);
    ASSERT_EQ(configs.size(), 2u);
    bool ib = std::string(fabric) == "infiniband";
    for (size_t i = 0; i < 2; ++i) {
      const json& policy = (*policies[i])["spec"];
      EXPECT_EQ(policy["linkType"], ib ? "IB" : "ETH");
      EXPECT_TRUE(policy["isRdma"].get<bool>());
      const json& spec = (*configs[i])["spec"];
      EXPECT_EQ(spec["cniType"], ib ? "ib-sriov" : "sriov") << fabric;
      const json& cni = spec[ib ? "ibsriov" : "sriov"];
      EXPECT_EQ(cni["resourceName"], "spidernet.io/" + policy["resourceName"].get<std::string>());
      EXPECT_TRUE(cni["rdmaIsolation"].get<bool>());
    }
    EXPECT_TRUE(ofKind(objects, "ConfigMap").empty());
    EXPECT_EQ(poolsByRail(objects, profile).size(), 2u);
  }
}

TEST(K8sRenderSpiderpool, ExclusivePlanCarvesSeed003sBlocks) {
  Profile profile = seedExclusive("sriov");
  auto objects = renderOrFail(profile);
  auto pools = poolsByRail(objects, profile);
  ASSERT_EQ(pools.size(), 8u);
  for (auto& [rail, list] : pools) {
    ASSERT_EQ(list.size(), 8u);
    std::string range = "172.17." + std::to_string(rail) + ".0/24";
    std::set<std::string> nodes;
    for (size_t k = 0; k < 8; ++k) {
      const json& spec = (*list[k])["spec"];
      std::string base = "172.17." + std::to_string(rail) + ".";
      EXPECT_EQ(spec["subnet"], base + std::to_string(32 * k) + "/27");
      EXPECT_EQ(spec["gateway"], base + std::to_string(32 * k + 1));
      EXPECT_EQ(spec["ips"],
                json::array({base + std::to_string(32 * k + 2) + "-" + base + std::to_string(32 * k + 30)}));
      EXPECT_EQ(spec["routes"], json::parse(R"([{"dst": ")" + range + R"(", "gw": ")" + base +
                                            std::to_string(32 * k + 1) + R"("}])"));
      nodes.insert(spec["nodeAffinity"]["matchLabels"]["kubernetes.io/hostname"].get<std::string>());
    }
    EXPECT_EQ(nodes.size(), 8u);
  }
  // Seed 003's own two: node1 rail 1 172.17.0.0/27 ... node8 rail 1 172.17.0.224/27.
  EXPECT_EQ((*pools[0][0])["spec"]["nodeAffinity"]["matchLabels"]["kubernetes.io/hostname"], "node1");
  EXPECT_EQ((*pools[0][7])["spec"]["subnet"], "172.17.0.224/27");
  EXPECT_EQ((*pools[0][7])["spec"]["nodeAffinity"]["matchLabels"]["kubernetes.io/hostname"], "node8");
}

// The node side of each plan: the chart's values, and per rail NIC a policy
// table (the exclusive plan also routes the rail's range through the leaf).
TEST(K8sRenderSpiderpool, NodePrepHasTheChartValuesAndTheRailRouting) {
  for (const char* plan : {"shared", "exclusive"}) {
    Profile profile = seedExclusive("rdma-shared");
    profile.subnets.plan = plan;
    if (std::string(plan) == "shared") profile.subnets.node_names.clear();
    ASSERT_TRUE(finishProfile(profile));
    std::map<std::string, std::string> files;
    for (auto& [name, text] : renderNodePrep(profile)) files[name] = text;
    ASSERT_TRUE(files.count("spiderpool-values.yaml"));
    const std::string& values = files["spiderpool-values.yaml"];
    EXPECT_NE(values.find("rdmaSharedDevicePlugin:\n    install: true"), std::string::npos) << values;
    EXPECT_NE(values.find("enabledRdmaMetric: true"), std::string::npos) << values;
    // Macvlan's shared RDMA keeps ib_core in shared mode (seed 003): no exclusive-mode file.
    EXPECT_FALSE(files.count("ib_core-netns-exclusive.conf")) << plan;
    const std::string& script = files["spiderpool-rail-routes.sh"];
    EXPECT_NE(script.find("rail ens1f0np0 100 172.17.0.0/24\n"), std::string::npos) << script;
    EXPECT_NE(script.find("rail ens8f0np0 107 172.17.7.0/24\n"), std::string::npos) << script;
    EXPECT_NE(script.find("arp_ignore=1"), std::string::npos);
    EXPECT_EQ(script.find("via \"$gw\"") != std::string::npos, std::string(plan) == "exclusive") << plan;
  }
  Profile sriov = spiderProfile("sriov", "infiniband", 2);
  ASSERT_TRUE(finishProfile(sriov));
  std::map<std::string, std::string> files;
  for (auto& [name, text] : renderNodePrep(sriov)) files[name] = text;
  EXPECT_NE(files["spiderpool-values.yaml"].find("sriov:\n  install: true"), std::string::npos);
  EXPECT_FALSE(files.count("spiderpool-rail-routes.sh"));  // IB: no policy routing needed
  EXPECT_NE(files["ib_core-netns-exclusive.conf"].find("Spiderpool"), std::string::npos);
}

// Every spiderpool mode x plan x launcher lints clean against the CRDs.
TEST(K8sRenderSpiderpool, EveryPlanLintsCleanAgainstTheSpiderpoolCrds) {
  RAILKIT_REQUIRE_SHARED();
  struct Case {
    const char* mode;
    const char* fabric;
    const char* plan;
  };
  for (Case c : {Case{"rdma-shared", "roce", "shared"}, Case{"rdma-shared", "roce", "exclusive"},
                 Case{"sriov", "roce", "shared"}, Case{"sriov", "roce", "exclusive"},
                 Case{"sriov", "infiniband", "shared"}})
    for (const char* launcher : kLaunchers) {
      Profile profile =
          std::string(c.plan) == "exclusive" ? seedExclusive(c.mode) : spiderProfile(c.mode, c.fabric, 2);
      profile.launcher = launcher;
      auto objects = renderOrFail(profile);
      std::string where = std::string(c.mode) + " " + c.fabric + " " + c.plan + " " + launcher;
      ASSERT_FALSE(ofKind(objects, "SpiderIPPool").empty()) << where;
      for (const Finding& finding : lintRendered(objects)) {
        EXPECT_EQ(finding.severity, Severity::kInfo) << where << ": " << finding.id << " " << finding.object
                                                     << " " << finding.path << ": " << finding.message;
        EXPECT_NE(finding.message.rfind("no schema for", 0), 0u) << where << ": " << finding.message;
      }
    }
}

// The CRDs do check what the render writes: a pool without its subnet, an
// unknown cniType, a route in the upstream doc's to/via shape.
TEST(K8sRenderSpiderpool, TheCrdsCatchABrokenPoolOrConfig) {
  RAILKIT_REQUIRE_SHARED();
  auto objects = renderOrFail(seedExclusive("sriov"));
  auto schemaErrors = [](const std::vector<RenderedObject>& broken) {
    std::vector<std::string> out;
    for (const Finding& f : lintRendered(broken))
      if (f.id == "schema" && f.severity == Severity::kError)
        out.push_back(f.object + " " + f.path + ": " + f.message);
    return out;
  };
  auto broken = objects;
  for (auto& object : broken)
    if (object.object["kind"] == "SpiderIPPool" && object.object["metadata"]["name"] == "job-rail0-node1")
      object.object["spec"].erase("subnet");
  auto errors = schemaErrors(broken);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("SpiderIPPool/job-rail0-node1"), std::string::npos) << errors[0];
  broken = objects;
  for (auto& object : broken)
    if (object.object["kind"] == "SpiderIPPool" && object.object["metadata"]["name"] == "job-rail1-node2")
      object.object["spec"]["routes"] = json::parse(R"([{"to": "172.17.1.0/24", "via": "172.17.1.33"}])");
  errors = schemaErrors(broken);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("SpiderIPPool/job-rail1-node2"), std::string::npos) << errors[0];
  broken = objects;
  for (auto& object : broken)
    if (object.object["kind"] == "SpiderMultusConfig") object.object["spec"]["cniType"] = "sriov-ib";
  EXPECT_EQ(schemaErrors(broken).size(), 8u);
}

// docs/render.md's Spiderpool example: examples/profiles/spiderpool-exclusive.yaml
// renders and lints clean.
TEST(K8sRenderSpiderpool, TheDocumentedExampleProfileLintsClean) {
  RAILKIT_REQUIRE_SHARED();
  std::ifstream in(railkit::testing::sourceDir() / "examples" / "profiles" / "spiderpool-exclusive.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto profile = parseProfile(text, "spiderpool-exclusive.yaml");
  ASSERT_TRUE(profile) << profile.error().message;
  profile->job_token = "fixed-job-token-for-tests-0123456789";
  auto objects = renderOrFail(*profile);
  EXPECT_EQ(ofKind(objects, "SpiderIPPool").size(), 4u);
  for (const Finding& finding : lintRendered(objects))
    EXPECT_EQ(finding.severity, Severity::kInfo)
        << finding.id << " " << finding.object << ": " << finding.message;
}

// --- refusals -----------------------------------------------------------------

std::string refusal(Profile profile) {
  auto status = finishProfile(profile);
  if (status) return "";
  EXPECT_EQ(status.error().code, ErrorCode::kUsage);
  EXPECT_EQ(status.error().message.find('\n'), std::string::npos) << status.error().message;
  return status.error().message;
}

TEST(K8sRenderSpiderpool, PlansThatDoNotFitAreRefused) {
  Profile fits = seedExclusive("sriov");
  EXPECT_EQ(refusal(fits), "");
  Profile more_nodes = fits;
  more_nodes.nodes = 9;
  more_nodes.subnets.node_names.push_back("node9");
  EXPECT_EQ(refusal(more_nodes),
            "profile: railRanges[0] 172.17.0.0/24 holds 8 blocks of 32 addresses, found 9 nodes (nodeNames)");
  Profile small_block = fits;
  small_block.subnets.node_block_size = 4;
  EXPECT_EQ(
      refusal(small_block),
      "profile: nodeBlockSize 4 leaves 1 pod addresses per node and rail (network, gateway and broadcast "
      "take 3), found podsPerNode 1 needing 2 (each pod and its replacement)");
  Profile crowded = fits;
  crowded.subnets.pods_per_node = 15;  // 30 addresses; a /27 block has 29
  EXPECT_NE(refusal(crowded).find("found podsPerNode 15 needing 30"), std::string::npos);
  Profile overlap = fits;
  overlap.subnets.rail_ranges[3] = "172.17.0.0/16";
  EXPECT_EQ(
      refusal(overlap),
      "profile: railRanges[3] 172.17.0.0/16 overlaps railRanges[0] 172.17.0.0/24 (every rail needs a range "
      "of its own)");
  Profile host_bits = fits;
  host_bits.subnets.rail_ranges[1] = "172.17.1.5/24";
  EXPECT_EQ(refusal(host_bits),
            "profile: railRanges[1] 172.17.1.5/24 has host bits set (expected 172.17.1.0/24)");
  Profile unnamed = fits;
  unnamed.subnets.node_names.clear();
  EXPECT_NE(refusal(unnamed).find("subnetPlan exclusive needs nodeNames"), std::string::npos);
  Profile shared = spiderProfile("sriov", "roce", 2);
  shared.nodes = 200;
  shared.subnets.rail_ranges = {"10.0.0.0/24", "10.0.1.0/24"};
  EXPECT_NE(refusal(shared).find("railRanges[0] 10.0.0.0/24 holds 254 pod addresses"), std::string::npos);
  Profile ib_macvlan = spiderProfile("rdma-shared", "infiniband", 2);
  EXPECT_NE(refusal(ib_macvlan).find("RoCE only"), std::string::npos);
  Profile operator_plan = spiderProfile("sriov", "roce", 2);
  operator_plan.cni = "operator";
  operator_plan.subnets.plan = "exclusive";
  EXPECT_NE(refusal(operator_plan).find("go with cni spiderpool"), std::string::npos);
  Profile dra = spiderProfile("dra", "roce", 2);
  EXPECT_NE(refusal(dra).find("cni spiderpool goes with mode rdma-shared or sriov"), std::string::npos);
}

// The CLI: one line on stderr, exit 2, nothing on stdout.
TEST(K8sRenderSpiderpool, TheCliRefusesInOneLineWithExit2) {
  std::string profile = railkit::testing::writeScratchFile("spider.yaml",
                                                           "image: registry.example.com/nccl:1\n"
                                                           "mode: sriov\nfabric: roce\ncni: spiderpool\n"
                                                           "subnetPlan: exclusive\nnodes: 3\n"
                                                           "dataInterfaces: [ens1f0, ens2f0]\n"
                                                           "railRanges: [172.17.0.0/26, 172.17.1.0/26]\n"
                                                           "nodeBlockSize: 32\nnodeNames: [a, b, c]\n");
  for (const char* sub : {"render", "render node-prep"}) {
    auto run = railkit::testing::runRailkit(std::string(sub) + " --profile " + profile);
    EXPECT_EQ(run.status, 2) << sub << ": " << run.err;
    EXPECT_TRUE(run.oneErrorLine()) << run.err;
    EXPECT_NE(run.err.find("railRanges[0] 172.17.0.0/26 holds 2 blocks of 32 addresses, found 3 nodes"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.out, "") << sub;
  }
}

TEST(K8sIpv4, ParsesOnlyWellFormedNetworks) {
  auto net = parseIpv4Net("172.17.0.224/27");
  ASSERT_TRUE(net);
  EXPECT_FALSE(net->hostBits());
  EXPECT_EQ(ipv4Text(net->last()), "172.17.0.255");
  EXPECT_TRUE(parseIpv4Net("172.16.11.0/16")->hostBits());
  EXPECT_EQ(ipv4NetText(*parseIpv4Net("172.16.11.0/16")), "172.16.0.0/16");
  for (const char* bad : {"172.17.0.0", "172.17.0/24", "172.17.0.0/33", "172.17.0.256/24", "172.017.0.0/24",
                          "172.17.0.0/", "172.17.0.0/024", " 172.17.0.0/24", "172.17.0.0/24 "})
    EXPECT_FALSE(parseIpv4Net(bad)) << bad;
  EXPECT_TRUE(parseIpv4Net("172.17.0.0/16")->overlaps(*parseIpv4Net("172.17.5.0/24")));
  EXPECT_FALSE(parseIpv4Net("172.17.0.0/24")->overlaps(*parseIpv4Net("172.17.1.0/24")));
}

}  // namespace
}  // namespace railkit::k8s::render
