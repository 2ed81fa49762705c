// The Spiderpool lint rules (docs/lint.md) on Spiderpool's own AI guides
// (tests/k8s/fixtures/real/spiderpool-*.yaml, each with its source URL): the
// mistakes the guides print are found, and railkit's renders of both subnet
// plans pass (render_spiderpool_test.cc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "k8s/lint/lint.h"
#include "k8s/schema.h"
#include "lint_helpers.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(railkit::testing::sourceDir() / "tests" / "k8s" / "fixtures" / "real" / name,
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

std::vector<Finding> withId(const std::vector<Finding>& findings, const std::string& id) {
  std::vector<Finding> out;
  for (const Finding& finding : findings)
    if (finding.id == id) out.push_back(finding);
  return out;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) out += f.id + " " + f.object + " " + f.path + ": " + f.message + "\n";
  return out;
}

// The exclusive plan of the SR-IOV RoCE guide: every block's ips runs one past
// the block (172.16.1.2-172.16.1.32 in 172.16.1.0/27), and rail 8's ends at
// 172.16.1.256, no address at all.
TEST(K8sLintSpiderpool, TheSriovGuidesBlocksRunPastTheirSubnets) {
  auto findings = withId(testing::lintText(fixture("spiderpool-sriov-roce-exclusive-plan.yaml")),
                         "spiderpool-ippool-invalid");
  ASSERT_EQ(findings.size(), 4u) << describe(findings);
  EXPECT_EQ(findings[0].object, "SpiderIPPool/eno3np1-rail1-node1");
  EXPECT_EQ(findings[0].path, "spec.ips[0]");
  EXPECT_NE(
      findings[0].message.find("ips entry 172.16.1.2-172.16.1.32 is outside subnet 172.16.1.0/27 (usable "
                               "172.16.1.1-172.16.1.30)"),
      std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[1].object, "SpiderIPPool/eno3np2-rail2-node1");
  EXPECT_EQ(findings[2].object, "SpiderIPPool/eno3np3-rail3-node1");
  EXPECT_EQ(findings[3].object, "SpiderIPPool/eno3np8-rail8-node1");
  EXPECT_NE(findings[3].message.find("'172.16.1.226-172.16.1.256' is not an IPv4 address"), std::string::npos)
      << findings[3].message;
  // Wildcard pool references match the guide's pool names; resource names have their prefix.
  auto all = testing::lintText(fixture("spiderpool-sriov-roce-exclusive-plan.yaml"));
  EXPECT_TRUE(withId(all, "spiderpool-multus-config").empty()) << describe(all);
  EXPECT_TRUE(withId(all, "spiderpool-ippool-overlap").empty()) << describe(all);
}

// The same guide's shapes the CRDs refuse: routes written to/via (the CRD
// says dst/gw), and matchMasterSubnet and enableRdma where sriov has no such field.
TEST(K8sLintSpiderpool, TheSriovGuidesRouteAndFieldsAreSchemaErrors) {
  RAILKIT_REQUIRE_SHARED();
  auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  auto findings =
      withId(testing::lintText(fixture("spiderpool-sriov-roce-exclusive-plan.yaml"), &*schemas), "schema");
  std::string text = describe(findings);
  EXPECT_NE(text.find("SpiderIPPool/eno3np1-rail1-node1 spec.routes[0]"), std::string::npos) << text;
  EXPECT_NE(text.find("SpiderMultusConfig/sriov-eno3np1 spec.sriov"), std::string::npos) << text;
  EXPECT_NE(text.find("matchMasterSubnet"), std::string::npos) << text;
  EXPECT_NE(text.find("enableRdma"), std::string::npos) << text;
}

// The Macvlan guide: a subnet with host bits set (172.16.11.0/16 is
// 172.16.0.0/16), the gateway inside it; the MTU variant carries its
// rdmaResourceName beside macvlan, where the CRD has no such field.
TEST(K8sLintSpiderpool, TheMacvlanGuidesPoolHasHostBitsSet) {
  auto findings =
      withId(testing::lintText(fixture("spiderpool-macvlan-shared-plan.yaml")), "spiderpool-ippool-invalid");
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].path, "spec.subnet");
  EXPECT_EQ(findings[0].message, "subnet 172.16.11.0/16 has host bits set: its network is 172.16.0.0/16");
  RAILKIT_REQUIRE_SHARED();
  auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  std::string text = describe(
      withId(testing::lintText(fixture("spiderpool-macvlan-shared-plan.yaml"), &*schemas), "schema"));
  EXPECT_NE(text.find("SpiderMultusConfig/gpu1-macvlan-mtu spec"), std::string::npos) << text;
  EXPECT_NE(text.find("rdmaResourceName"), std::string::npos) << text;
  EXPECT_EQ(text.find("SpiderMultusConfig/gpu1-macvlan "), std::string::npos) << text;
}

// The guide numbers its rails 172.16.11.0/16 (GPU1), 172.16.12.0/16 (GPU2, its
// pods' net2 is 172.16.12.10): two rails in one /16, the overlap the rule names.
TEST(K8sLintSpiderpool, RailsInOneSubnetOverlap) {
  std::string text = fixture("spiderpool-macvlan-shared-plan.yaml");
  text += R"(---
apiVersion: spiderpool.spidernet.io/v2beta1
kind: SpiderIPPool
metadata:
  name: gpu2-net12
spec:
  gateway: 172.16.12.254
  subnet: 172.16.12.0/16
  ips:
    - 172.16.12.1-172.16.12.200
---
apiVersion: spiderpool.spidernet.io/v2beta1
kind: SpiderMultusConfig
metadata:
  name: gpu2-macvlan
  namespace: spiderpool
spec:
  cniType: macvlan
  macvlan:
    master: ["enp12s0f0np0"]
    ippools:
      ipv4: ["gpu2-net12"]
)";
  auto findings = withId(testing::lintText(text), "spiderpool-ippool-overlap");
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_EQ(findings[0].object, "SpiderIPPool/gpu2-net12");
  EXPECT_NE(findings[0].message.find("overlaps SpiderIPPool/gpu1-net11's 172.16.11.0/16"), std::string::npos)
      << findings[0].message;
  // One address in two pools is an overlap too, whatever the rails.
  std::string twice = text;
  twice.replace(twice.find("172.16.12.1-172.16.12.200"), 25, "172.16.11.200-172.16.12.9");
  findings = withId(testing::lintText(twice), "spiderpool-ippool-overlap");
  ASSERT_EQ(findings.size(), 1u) << describe(findings);
  EXPECT_NE(findings[0].message.find("172.16.11.200 can be given to two pods"), std::string::npos)
      << findings[0].message;
}

// A worker that attaches the guide's networks: its RDMA resource must be
// requested, with its prefix; NCCL_SOCKET_IFNAME must name the pod's own
// interface (net1), not the host's master NIC.
constexpr const char* kWorker = R"(---
apiVersion: v1
kind: Pod
metadata:
  name: worker
  namespace: spiderpool
  annotations:
    k8s.v1.cni.cncf.io/networks: spiderpool/gpu1-macvlan
spec:
  containers:
  - name: worker
    image: registry.example.com/nccl:1
    env:
    - name: NCCL_SOCKET_IFNAME
      value: enp11s0f0np0
    securityContext:
      capabilities:
        add: [IPC_LOCK]
    resources:
      limits:
        nvidia.com/gpu: 8
)";

TEST(K8sLintSpiderpool, AttachedNetworksNeedTheirResourceAndThePodsInterfaceNames) {
  std::string base = fixture("spiderpool-macvlan-shared-plan.yaml");
  std::string with_resource = base;
  with_resource.replace(with_resource.find("    master: [\"enp11s0f0np0\"]\n"), 0,
                        "    rdmaResourceName: shared_cx5_gpu1\n");
  auto findings = testing::lintText(with_resource + kWorker);
  auto config = withId(findings, "spiderpool-multus-config");
  ASSERT_EQ(config.size(), 1u) << describe(findings);
  EXPECT_EQ(config[0].path, "spec.macvlan.rdmaResourceName");
  EXPECT_NE(config[0].message.find("'shared_cx5_gpu1' has no prefix"), std::string::npos)
      << config[0].message;
  auto ifname = withId(findings, "nccl-socket-ifname-mismatch");
  ASSERT_EQ(ifname.size(), 1u) << describe(findings);
  EXPECT_NE(ifname[0].message.find("eth0, net1"), std::string::npos) << ifname[0].message;

  std::string prefixed = base;
  prefixed.replace(prefixed.find("    master: [\"enp11s0f0np0\"]\n"), 0,
                   "    rdmaResourceName: spidernet.io/shared_cx5_gpu1\n");
  config = withId(testing::lintText(prefixed + kWorker), "spiderpool-multus-config");
  ASSERT_EQ(config.size(), 1u);
  EXPECT_EQ(config[0].object, "Pod/worker");
  EXPECT_NE(config[0].message.find("no container requests spidernet.io/shared_cx5_gpu1"), std::string::npos)
      << config[0].message;
  std::string requesting = std::string(kWorker) + "        spidernet.io/shared_cx5_gpu1: 1\n";
  EXPECT_TRUE(withId(testing::lintText(prefixed + requesting), "spiderpool-multus-config").empty());
  // A pool name that matches nothing in the files.
  std::string missing = prefixed;
  const std::string pool_ref = "ipv4: [\"gpu1-net11\"]";
  missing.replace(missing.find(pool_ref), pool_ref.size(), "ipv4: [\"gpu1-net12\"]");
  config = withId(testing::lintText(missing + requesting), "spiderpool-multus-config");
  ASSERT_EQ(config.size(), 1u) << describe(config);
  EXPECT_EQ(config[0].severity, Severity::kWarning);
  EXPECT_NE(config[0].message.find("pool 'gpu1-net12' matches no SpiderIPPool"), std::string::npos);
}

}  // namespace
}  // namespace railkit::k8s
