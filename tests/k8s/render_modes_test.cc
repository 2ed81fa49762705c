// Each exposure mode renders what its upstream project does (docs/render.md,
// "Modes" and "node-prep"): one attachment per rail, the mode's own objects,
// and the decoration launchers build the worker pods from.
#include <gtest/gtest.h>

#include <set>

#include "k8s/lint/lint.h"
#include "k8s/render/parts.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

constexpr const char* kToken = "fixed-job-token-for-tests-0123456789";

Profile profileFor(const std::string& mode, const std::string& fabric, size_t rails) {
  Profile profile;
  profile.image = "registry.example.com/nccl:1";
  profile.name = "job";
  profile.mode = mode;
  profile.fabric = fabric;
  profile.job_token = kToken;
  // nccl-tests over indexed-job/jobset: the pods' shared SSH key Secret.
  profile.ssh_private_key = "-----BEGIN EC PRIVATE KEY-----\nfixed\n-----END EC PRIVATE KEY-----\n";
  profile.ssh_public_key = "ecdsa-sha2-nistp256 AAAAfixed railkit-test\n";
  for (size_t i = 0; i < rails; ++i) profile.data_interfaces.push_back("ibp" + std::to_string(i * 10) + "s0");
  return profile;
}

struct Rendered {
  std::vector<RenderedObject> objects;
  PodDecoration decoration;
};

// The mode's objects and decoration as renderProfile builds them.
Rendered renderModeOf(Profile profile) {
  EXPECT_TRUE(finishProfile(profile));
  Rendered out;
  auto objects = renderMode(profile, out.decoration);
  EXPECT_TRUE(objects) << (objects ? "" : objects.error().message);
  if (objects) out.objects = *objects;
  return out;
}

std::vector<const RenderedObject*> ofKind(const std::vector<RenderedObject>& objects,
                                          const std::string& kind) {
  std::vector<const RenderedObject*> out;
  for (const auto& object : objects)
    if (object.object["kind"] == kind) out.push_back(&object);
  return out;
}

// The worker pod specs of a full render, wherever the launcher nests them.
void collectPodSpecs(const json& node, std::vector<json>& out) {
  if (node.is_object()) {
    if (node.contains("containers") && node["containers"].is_array()) out.push_back(node);
    for (const auto& [key, value] : node.items()) collectPodSpecs(value, out);
  } else if (node.is_array()) {
    for (const auto& value : node) collectPodSpecs(value, out);
  }
}

std::vector<json> workerPods(const std::vector<RenderedObject>& objects) {
  std::vector<json> pods;
  for (const auto& object : objects) collectPodSpecs(object.object, pods);
  std::vector<json> workers;
  for (const json& pod : pods)
    for (const json& container : pod["containers"])
      if (container.value("name", "") != "launcher" && container.contains("securityContext")) {
        workers.push_back(pod);
        break;
      }
  return workers;
}

// The lint findings of a render against ../shared/schemas and railkit's own
// schemas/ (the CRDs of IPPool and SriovNetworkPoolConfig).
std::vector<Finding> lintRendered(const std::vector<RenderedObject>& objects) {
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  EXPECT_TRUE(schemas) << schemas.error().message;
  if (!schemas) return {};
  std::string yaml = toYaml(objects);
  auto manifest = loadManifest(yaml, "rendered.yaml");
  EXPECT_TRUE(manifest) << manifest.error().message;
  if (!manifest) return {};
  EXPECT_EQ((*manifest)->objects.size(), objects.size());
  LintInput input;
  input.manifests.push_back(std::move(*manifest));
  input.schemas = &*schemas;
  prepareLintInput(input);
  return runLint(input);
}

// Lints the whole render: no error, no warning, and every object validated
// (a kind without a schema is only an info finding, so it is looked for).
void expectLintClean(const std::vector<RenderedObject>& objects) {
  for (const Finding& finding : lintRendered(objects)) {
    EXPECT_EQ(finding.severity, Severity::kInfo)
        << finding.id << " " << finding.object << " " << finding.path << ": " << finding.message;
    EXPECT_NE(finding.message.rfind("no schema for", 0), 0u) << finding.object << ": " << finding.message;
  }
}

// --- dra -------------------------------------------------------------------

TEST(K8sRenderModes, DraClaimsOneNicPerRailNamedDranetN) {
  Profile profile = profileFor("dra", "infiniband", 4);
  Rendered r = renderModeOf(profile);
  auto templates = ofKind(r.objects, "ResourceClaimTemplate");
  ASSERT_EQ(templates.size(), 1u);
  const json& devices = templates[0]->object["spec"]["spec"]["devices"];
  ASSERT_EQ(devices["requests"].size(), 4u);
  ASSERT_EQ(devices["config"].size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const json& request = devices["requests"][i];
    EXPECT_EQ(request["name"], "nic" + std::to_string(i));
    EXPECT_EQ(request["exactly"]["count"], 1);
    std::string cel = request["exactly"]["selectors"][0]["cel"]["expression"];
    EXPECT_NE(cel.find("ifName == \"" + profile.data_interfaces[i] + "\""), std::string::npos) << cel;
    const json& config = devices["config"][i];
    EXPECT_EQ(config["requests"], json::array({"nic" + std::to_string(i)}));
    EXPECT_EQ(config["opaque"]["parameters"]["interface"]["name"], "dranet" + std::to_string(i));
  }
  EXPECT_FALSE(devices.contains("constraints"));
  EXPECT_EQ(r.decoration.pod_data_interfaces,
            (std::vector<std::string>{"dranet0", "dranet1", "dranet2", "dranet3"}));
  EXPECT_FALSE(r.decoration.gpus_from_dra);
}

TEST(K8sRenderModes, DraGpusAlignGpuByGpuAndDropDevicePluginGpus) {
  Profile profile = profileFor("dra", "roce", 8);
  profile.dra_gpus = true;
  Rendered r = renderModeOf(profile);
  const json& devices = ofKind(r.objects, "ResourceClaimTemplate")[0]->object["spec"]["spec"]["devices"];
  int gpu_requests = 0;
  for (const json& request : devices["requests"])
    if (request["exactly"]["deviceClassName"] == "gpu.nvidia.com") {
      ++gpu_requests;
      EXPECT_EQ(request["exactly"]["count"], 1);
    }
  EXPECT_EQ(gpu_requests, 8);
  // One constraint per GPU-NIC pair, never one over the whole box.
  ASSERT_EQ(devices["constraints"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const json& constraint = devices["constraints"][i];
    EXPECT_EQ(constraint["matchAttribute"], "resource.kubernetes.io/pcieRoot");
    EXPECT_EQ(constraint["requests"], json::array({"gpu" + std::to_string(i), "nic" + std::to_string(i)}));
  }
  EXPECT_TRUE(r.decoration.gpus_from_dra);
  // Fewer NICs than GPUs: only as many pairs as NICs.
  Profile two_nics = profileFor("dra", "infiniband", 2);
  two_nics.dra_gpus = true;
  Rendered r2 = renderModeOf(two_nics);
  EXPECT_EQ(
      ofKind(r2.objects, "ResourceClaimTemplate")[0]->object["spec"]["spec"]["devices"]["constraints"].size(),
      2u);

  RAILKIT_REQUIRE_SHARED();
  for (const char* launcher : kLaunchers) {
    profile.launcher = launcher;
    auto objects = renderProfile(profile);
    ASSERT_TRUE(objects) << objects.error().message;
    auto workers = workerPods(*objects);
    ASSERT_FALSE(workers.empty()) << launcher;
    for (const json& pod : workers) {
      const json& resources = pod["containers"][0]["resources"];
      EXPECT_FALSE(resources["limits"].contains("nvidia.com/gpu")) << launcher;
      EXPECT_FALSE(resources["requests"].contains("nvidia.com/gpu")) << launcher;
      EXPECT_EQ(resources["claims"], json::array({{{"name", "rails"}}})) << launcher;
    }
    expectLintClean(*objects);
  }
}

// --- gke-tcpxo ---------------------------------------------------------------

TEST(K8sRenderModes, TcpxoDaemonIsANativeSidecarOnRxdm1020) {
  Profile profile = profileFor("gke-tcpxo", "tcpxo", 0);
  Rendered r = renderModeOf(profile);
  for (const json& container : r.decoration.extra_containers) EXPECT_NE(container["name"], "tcpxo-daemon");
  ASSERT_EQ(r.decoration.init_containers.size(), 1u);
  const json& daemon = r.decoration.init_containers[0];
  EXPECT_EQ(daemon["name"], "tcpxo-daemon");
  EXPECT_EQ(daemon["restartPolicy"], "Always");
  std::string image = daemon["image"];
  EXPECT_EQ(image.substr(image.rfind(':')), ":v1.0.20");
  std::string script = daemon["command"].back();
  auto chmod = script.find("chmod 755 /fts/entrypoint_rxdm_container.sh");
  auto run = script.find("/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics 8");
  ASSERT_NE(chmod, std::string::npos) << script;
  ASSERT_NE(run, std::string::npos) << script;
  EXPECT_LT(chmod, run);
  EXPECT_EQ(script.find("--uid="), std::string::npos);
  EXPECT_EQ(script.find("alsologtostderr"), std::string::npos);
  EXPECT_EQ(daemon.dump().find("privileged"), std::string::npos);
  // The NRI annotation names the daemon's container and every GPU.
  std::string devices = r.decoration.annotations["devices.gke.io/container.tcpxo-daemon"];
  EXPECT_NE(devices.find("/dev/nvidia7\n"), std::string::npos);
  EXPECT_NE(devices.find("/dev/dmabuf_import_helper"), std::string::npos);
  EXPECT_EQ(r.decoration.pod_data_interfaces.size(), 8u);
  EXPECT_EQ(r.decoration.pod_data_interfaces.front(), "eth1");

  RAILKIT_REQUIRE_SHARED();
  for (const char* launcher : kLaunchers) {
    profile.launcher = launcher;
    auto objects = renderProfile(profile);
    ASSERT_TRUE(objects) << objects.error().message;
    for (const json& pod : workerPods(*objects)) {
      ASSERT_TRUE(pod.contains("initContainers")) << launcher;
      EXPECT_EQ(pod["initContainers"][0]["name"], "tcpxo-daemon") << launcher;
      for (const json& container : pod["containers"])
        EXPECT_NE(container["name"], "tcpxo-daemon") << launcher;
    }
    expectLintClean(*objects);
  }
}

TEST(K8sRenderModes, TcpxoSourcesTheNodesNcclProfileThenNamesPodInterfaces) {
  Rendered r = renderModeOf(profileFor("gke-tcpxo", "tcpxo", 0));
  const auto& prelude = r.decoration.command_prelude;
  ASSERT_EQ(prelude.size(), 2u);
  EXPECT_EQ(prelude[0], "NCCL_LIB_DIR=/usr/local/nvidia/lib64 . /usr/local/nvidia/lib64/nccl-env-profile.sh");
  EXPECT_NE(prelude[1].find("NCCL_FASTRAK_CTRL_DEV=eth0"), std::string::npos);
  EXPECT_NE(prelude[1].find("NCCL_FASTRAK_IFNAME=eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"),
            std::string::npos);
  // The tuning comes from the profile script, not from values pinned here.
  for (const json& env : r.decoration.env) {
    EXPECT_NE(env["name"], "NCCL_TUNER_CONFIG_PATH");
    EXPECT_NE(env["name"], "NCCL_FASTRAK_USE_SNAP");
  }
  // The script it sources lives on the host library mount.
  bool mounted = false;
  for (const json& mount : r.decoration.extra_mounts)
    mounted = mounted || mount["mountPath"] == "/usr/local/nvidia";
  EXPECT_TRUE(mounted);
}

// --- sriov -------------------------------------------------------------------

TEST(K8sRenderModes, SriovOneNetworkAndRangePerRailWithRdmaExclusive) {
  for (const char* fabric : {"roce", "infiniband"}) {
    Profile profile = profileFor("sriov", fabric, 3);
    Rendered r = renderModeOf(profile);
    auto pool = ofKind(r.objects, "SriovNetworkPoolConfig");
    ASSERT_EQ(pool.size(), 1u) << fabric;
    EXPECT_EQ(pool[0]->object["spec"]["rdmaMode"], "exclusive");
    EXPECT_TRUE(pool[0]->object["spec"]["nodeSelector"].contains("matchLabels"));
    auto policies = ofKind(r.objects, "SriovNetworkNodePolicy");
    auto networks = ofKind(r.objects, std::string(fabric) == "roce" ? "SriovNetwork" : "SriovIBNetwork");
    ASSERT_EQ(policies.size(), 3u) << fabric;
    ASSERT_EQ(networks.size(), 3u) << fabric;
    std::set<std::string> resources, ranges;
    for (size_t i = 0; i < 3; ++i) {
      const json& policy = policies[i]->object["spec"];
      EXPECT_EQ(policy["nicSelector"]["pfNames"], json::array({profile.data_interfaces[i]}));
      EXPECT_TRUE(policy["isRdma"].get<bool>());
      const json& network = networks[i]->object["spec"];
      EXPECT_EQ(network["resourceName"], policy["resourceName"]);
      resources.insert(network["resourceName"].get<std::string>());
      EXPECT_EQ(json::parse(network["metaPlugins"].get<std::string>())["type"], "rdma");
      json ipam = json::parse(network["ipam"].get<std::string>());
      EXPECT_EQ(ipam["type"], "whereabouts");
      ranges.insert(ipam["range"].get<std::string>());
      EXPECT_EQ(r.decoration.limits["openshift.io/" + network["resourceName"].get<std::string>()], 1);
    }
    EXPECT_EQ(resources.size(), 3u);
    EXPECT_EQ(ranges.size(), 3u);
    EXPECT_EQ(r.decoration.annotations["k8s.v1.cni.cncf.io/networks"],
              "job-rail0@net1,job-rail1@net2,job-rail2@net3");
    EXPECT_EQ(r.decoration.pod_data_interfaces, (std::vector<std::string>{"net1", "net2", "net3"}));
    for (const auto& object : r.objects) EXPECT_EQ(toYaml(object).find("rdma system set"), std::string::npos);
  }
}

// The modes come from renderMode's one table: each renders, a profile without
// a mode gets the first, and an unknown one is refused naming every mode.
TEST(K8sRenderModes, ModesComeFromTheModeTable) {
  ASSERT_GE(modeNames().size(), 6u);
  EXPECT_EQ(Profile{}.mode, std::string(modeNames().front()));
  EXPECT_EQ(std::string(defaultMode()), "rdma-shared");
  Profile profile = profileFor("macvlan", "infiniband", 2);
  auto s = finishProfile(profile);
  ASSERT_FALSE(s);
  for (const char* mode : modeNames()) EXPECT_NE(s.error().message.find(mode), std::string::npos) << mode;
}

// A VF, a moved PF or a claimed NIC is not the host's device under the
// host's name: those modes leave NCCL_IB_HCA to railkit env in the pod.
TEST(K8sRenderModes, HcasPinnedOnlyWhereThePodSeesTheHostsDevices) {
  for (const char* mode : modeNames()) {
    Profile profile = profileFor(mode, std::string(mode) == "gke-tcpxo" ? "tcpxo" : "infiniband", 2);
    profile.hcas = {"mlx5_0", "mlx5_1"};
    Rendered r = renderModeOf(profile);
    bool pinned = false;
    for (const json& env : r.decoration.env) pinned = pinned || env["name"] == "NCCL_IB_HCA";
    bool host_names = std::string(mode) == "rdma-shared" || std::string(mode) == "host-network";
    EXPECT_EQ(pinned, host_names) << mode;
  }
}

// --- rdma-shared / host-device / host-network (network-operator) ------------

const json* policySpec(const Rendered& r) {
  auto policies = ofKind(r.objects, "NicClusterPolicy");
  EXPECT_EQ(policies.size(), 1u);
  if (policies.size() != 1) return nullptr;
  // A singleton: rendered as a merge, and the comment says so and how.
  EXPECT_NE(policies[0]->comment.find("MERGE"), std::string::npos);
  EXPECT_NE(policies[0]->comment.find("kubectl patch nicclusterpolicy nic-cluster-policy --type merge"),
            std::string::npos);
  EXPECT_EQ(policies[0]->object["metadata"]["name"], "nic-cluster-policy");
  EXPECT_FALSE(policies[0]->object["spec"].contains("ofedDriver"));
  return &policies[0]->object["spec"];
}

TEST(K8sRenderModes, RdmaSharedOneNetworkPerRailWithSecondaryNetwork) {
  for (const char* fabric : {"infiniband", "roce"}) {
    Profile profile = profileFor("rdma-shared", fabric, 2);
    Rendered r = renderModeOf(profile);
    const json* spec = policySpec(r);
    ASSERT_NE(spec, nullptr);
    const json& secondary = (*spec)["secondaryNetwork"];
    EXPECT_TRUE(secondary.contains("multus"));
    EXPECT_TRUE(secondary.contains("cniPlugins"));
    EXPECT_EQ(secondary.contains("ipoib"), std::string(fabric) == "infiniband") << fabric;
    EXPECT_TRUE(spec->contains("nvIpam"));
    json config = json::parse((*spec)["rdmaSharedDevicePlugin"]["config"].get<std::string>());
    EXPECT_EQ(config["configList"][0]["selectors"]["ifNames"], json(profile.data_interfaces));
    auto networks =
        ofKind(r.objects, std::string(fabric) == "infiniband" ? "IPoIBNetwork" : "MacvlanNetwork");
    auto pools = ofKind(r.objects, "IPPool");
    ASSERT_EQ(networks.size(), 2u);
    ASSERT_EQ(pools.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(networks[i]->object["spec"]["master"], profile.data_interfaces[i]);
      json ipam = json::parse(networks[i]->object["spec"]["ipam"].get<std::string>());
      EXPECT_EQ(ipam["type"], "nv-ipam");
      EXPECT_EQ(ipam["poolName"], pools[i]->object["metadata"]["name"]);
    }
    EXPECT_NE(pools[0]->object["spec"]["subnet"], pools[1]->object["spec"]["subnet"]);
    EXPECT_EQ(r.decoration.annotations["k8s.v1.cni.cncf.io/networks"], "job-rail0@net1,job-rail1@net2");
    EXPECT_EQ(r.decoration.pod_data_interfaces, (std::vector<std::string>{"net1", "net2"}));
  }
}

TEST(K8sRenderModes, HostDeviceSelectsOnlyTheDataNics) {
  Profile profile = profileFor("host-device", "infiniband", 2);
  for (bool with_addresses : {false, true}) {
    if (with_addresses) profile.data_pci_addresses = {"0000:0c:00.0", "0000:4b:00.0"};
    Rendered r = renderModeOf(profile);
    const json* spec = policySpec(r);
    ASSERT_NE(spec, nullptr);
    EXPECT_TRUE((*spec)["secondaryNetwork"].contains("multus"));
    json config = json::parse((*spec)["sriovDevicePlugin"]["config"].get<std::string>());
    ASSERT_EQ(config["resourceList"].size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      const json& selectors = config["resourceList"][i]["selectors"];
      // A selector by vendor alone would take a management NIC of the same make.
      const char* key = with_addresses ? "pciAddresses" : "pfNames";
      const auto& names = with_addresses ? profile.data_pci_addresses : profile.data_interfaces;
      EXPECT_EQ(selectors[key], json::array({names[i]}));
      std::string resource = config["resourceList"][i]["resourceName"];
      EXPECT_EQ(ofKind(r.objects, "HostDeviceNetwork")[i]->object["spec"]["resourceName"], resource);
      EXPECT_EQ(r.decoration.limits["nvidia.com/" + resource], 1);
    }
    EXPECT_EQ(r.decoration.pod_data_interfaces, (std::vector<std::string>{"net1", "net2"}));
  }
  profile.data_pci_addresses = {"0000:0c:00.0"};  // one short
  EXPECT_FALSE(finishProfile(profile));
}

TEST(K8sRenderModes, HostNetworkNeedsNoSecondaryNetwork) {
  Rendered r = renderModeOf(profileFor("host-network", "infiniband", 2));
  const json* spec = policySpec(r);
  ASSERT_NE(spec, nullptr);
  EXPECT_FALSE(spec->contains("secondaryNetwork"));
  EXPECT_TRUE(r.decoration.host_network);
}

TEST(K8sRenderModes, LargeJobsGetRailRangesThatHoldThem) {
  Profile profile = profileFor("sriov", "roce", 2);
  profile.nodes = 5000;
  Rendered r = renderModeOf(profile);
  for (const auto* network : ofKind(r.objects, "SriovNetwork")) {
    std::string range = json::parse(network->object["spec"]["ipam"].get<std::string>())["range"];
    EXPECT_EQ(range.substr(range.find('/')), "/15") << range;
  }
}

// Every mode x launcher x fabric (and dra with and without draGpus) lints
// clean against the schemas: no error, no warning beyond host-network's own.
struct MatrixCase {
  std::string mode, launcher, fabric;
  bool dra_gpus = false;
};

std::vector<MatrixCase> matrixCases() {
  std::vector<MatrixCase> cases;
  for (const char* mode : modeNames())
    for (const char* launcher : kLaunchers)
      for (const char* fabric : {"infiniband", "roce", "tcpxo"}) {
        if ((std::string(fabric) == "tcpxo") != (std::string(mode) == "gke-tcpxo")) continue;
        cases.push_back({mode, launcher, fabric, false});
        if (std::string(mode) == "dra") cases.push_back({mode, launcher, fabric, true});
      }
  return cases;
}

class K8sRenderModesMatrix : public ::testing::TestWithParam<MatrixCase> {};

TEST_P(K8sRenderModesMatrix, LintsCleanAgainstSchemas) {
  RAILKIT_REQUIRE_SHARED();
  const MatrixCase& c = GetParam();
  Profile profile = profileFor(c.mode, c.fabric, c.mode == "gke-tcpxo" ? 0 : 2);
  profile.launcher = c.launcher;
  profile.dra_gpus = c.dra_gpus;
  profile.hcas = {"mlx5_0", "mlx5_1"};
  auto objects = renderProfile(profile);
  ASSERT_TRUE(objects) << objects.error().message;
  for (const Finding& finding : lintRendered(*objects)) {
    if (finding.id == "host-network" && c.mode == "host-network") continue;
    EXPECT_EQ(finding.severity, Severity::kInfo)
        << finding.id << " " << finding.object << " " << finding.path << ": " << finding.message;
    // Every rendered kind has a schema (the CRDs ../shared lacks are in schemas/).
    EXPECT_NE(finding.message.rfind("no schema for", 0), 0u) << finding.object << ": " << finding.message;
  }
  EXPECT_EQ(toYaml(*objects).find("privileged: true"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(AllModesLaunchersFabrics, K8sRenderModesMatrix, ::testing::ValuesIn(matrixCases()),
                         [](const ::testing::TestParamInfo<MatrixCase>& info) {
                           std::string name = info.param.mode + "_" + info.param.launcher + "_" +
                                              info.param.fabric + (info.param.dra_gpus ? "_draGpus" : "");
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace railkit::k8s::render
