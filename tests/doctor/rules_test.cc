// Every doctor rule against NodeBuilder trees written to disk and read back
// through collectInventory, exactly as `railkit doctor --root` runs: healthy
// nodes stay silent, each breakage fires its rule with the right severity,
// subject and evidence. A rule without a firing case here fails the suite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "doctor/rule.h"
#include "model/collect.h"
#include "support/node_builder.h"
#include "support/node_scratch.h"
#include "support/roce_live.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using railkit::Finding;
using railkit::Severity;
using railkit::doctor::DoctorInput;
using railkit::doctor::HostfileCheck;
using railkit::testing::NetdevSpec;
using railkit::testing::NodeBuilder;
using railkit::testing::RoceLive;
using railkit::testing::roceLiveJson;

namespace {

constexpr const char* kScratch = "railkit-doctor-rules";
[[maybe_unused]] ::testing::Environment* const kScratchCleanup =
    ::testing::AddGlobalTestEnvironment(new railkit::testing::NodeScratchCleanup(kScratch));

fs::path tempDir(const std::string& name) {
  fs::path d = railkit::testing::nodeScratch(kScratch) / name;
  fs::remove_all(d);
  return d;
}

std::vector<Finding> doctorOn(const fs::path& dir, const HostfileCheck* hostfile = nullptr) {
  auto inv = railkit::model::collectInventory(railkit::FileRoot(dir), {});
  EXPECT_TRUE(inv.has_value()) << (inv ? "" : inv.error().message);
  if (!inv) return {};
  return railkit::doctor::runRules(DoctorInput{*inv, hostfile});
}

std::vector<Finding> withId(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.id == id) out.push_back(f);
  return out;
}

std::string describe(const std::vector<Finding>& all) {
  std::string s;
  for (const auto& f : all)
    s += "  [" + f.id + "] " + severityName(f.severity) + " " + f.subject + ": " + f.message + "\n";
  return s;
}

struct Case {
  const char* name;
  const char* id;
  std::function<NodeBuilder()> make;
  Severity severity;
  const char* subject;   // exact subject of the expected finding
  const char* evidence;  // substring of some evidence text or source
  std::function<void(const fs::path&)> after_write = nullptr;
  std::function<HostfileCheck()> hostfile = nullptr;
};

NodeBuilder dgx() {
  return NodeBuilder::healthyDgxH100();
}
NodeBuilder roce() {
  return NodeBuilder::healthyRoce();
}
NodeBuilder allPortsDown() {
  auto n = dgx();
  for (int i = 0; i < 8; ++i) n.setPortState("mlx5_" + std::to_string(i), 1, "1: DOWN", "3: Disabled");
  return n;
}
// The RoCE preset with all rails in one subnet (railkit/live.json), NCCL on
// priority 3 (NCCL_IB_TC=106) and ECN on: healthy until `live` breaks it.
NodeBuilder multiRail(RoceLive live = {}) {
  auto n = roce().setEnv("NCCL_IB_TC", "106").setLiveJson(roceLiveJson(live));
  for (int i = 0; i < 8; ++i) n.setEcn(railkit::testing::roceRail(i), 0xff, 0xff);
  return n;
}
NodeBuilder ibWithoutIpoib() {
  auto n = dgx().unloadModule("ib_ipoib");
  std::erase_if(n.spec().netdevs, [](const NetdevSpec& d) { return d.type == "32"; });
  return n;
}
NodeBuilder allGidsElsewhere() {
  auto n = roce();
  for (int g = 0; g < 4; ++g) n.setGidNetdev("mlx5_4", 1, g, "ens4f0np0v1");
  return n;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"EmptyPod", "rdma-no-devices", [] { return NodeBuilder::emptyPod(); }, Severity::kError, "node",
       "/sys/class/infiniband"},
      {"OnePortDown", "rdma-port-down",
       [] { return dgx().setPortState("mlx5_3", 1, "1: DOWN", "3: Disabled"); }, Severity::kWarning,
       "mlx5_3:1", "Disabled"},
      {"PhysPolling", "rdma-port-down",
       [] { return dgx().setPortState("mlx5_6", 1, "1: DOWN", "2: Polling"); }, Severity::kWarning,
       "mlx5_6:1", "Polling"},
      {"NoPortUsable", "rdma-port-down", allPortsDown, Severity::kError, "mlx5_0:1", "DOWN"},
      {"PortInit", "ib-no-subnet-manager",
       [] { return dgx().setPortState("mlx5_1", 1, "2: INIT", "5: LinkUp"); }, Severity::kError, "mlx5_1:1",
       "INIT"},
      {"SmLidZero", "ib-no-subnet-manager", [] { return dgx().setSmLid("mlx5_2", 1, "0x0"); },
       Severity::kError, "mlx5_2:1", "sm_lid"},
      {"NoUverbs", "uverbs-missing", [] { return dgx().removeUverbs(); }, Severity::kError, "/dev/infiniband",
       "absent"},
      {"Memlock64K", "memlock-limit", [] { return dgx().setMemlock(65536).dropCapIpcLock(); },
       Severity::kError, "process", "Max locked memory 65536"},
      // With CAP_IPC_LOCK the kernel does not hold registrations to the limit.
      {"Memlock64KWithIpcLock", "memlock-limit", [] { return dgx().setMemlock(65536); }, Severity::kWarning,
       "process", "Max locked memory 65536"},
      {"Memlock2G", "memlock-limit", [] { return dgx().setMemlock(2ull << 30); }, Severity::kWarning,
       "process", "2147483648"},
      {"NoIpcLock", "ipc-lock-missing", [] { return dgx().dropCapIpcLock().setMemlock(65536); },
       Severity::kError, "process", "CapEff:\t00000000a80425fb"},
      // Memlock unlimited: registration works without the capability, so it
      // is info, the severity lint gives where the platform sets it so.
      {"NoIpcLockMemlockUnlimited", "ipc-lock-missing", [] { return dgx().dropCapIpcLock(); },
       Severity::kInfo, "process", "Max locked memory unlimited"},
      {"Shm64M", "shm-too-small", [] { return dgx().setShmKib(65536); }, Severity::kError, "/dev/shm",
       "67108864"},
      {"VfsInSharedMode", "rdma-netns-shared", [] { return dgx().addVfs("mlx5_0", 4); }, Severity::kWarning,
       "mlx5_0", "netns_mode"},
      {"PinnedGidElsewhere", "roce-gid-netns", [] { return roce().setGidNetdev("mlx5_2", 1, 3, "net7"); },
       Severity::kError, "mlx5_2:1", "gid_attrs/ndevs/3"},
      {"OtherGidElsewhere", "roce-gid-netns", [] { return roce().setGidNetdev("mlx5_2", 1, 0, "net7"); },
       Severity::kInfo, "mlx5_2:1", "gid_attrs/ndevs/0"},
      {"AllGidsElsewhere", "roce-gid-netns", allGidsElsewhere, Severity::kError, "mlx5_4:1", "ens4f0np0v1"},
      {"NoPeermem", "gpudirect-module-missing", [] { return dgx().unloadModule("nvidia_peermem"); },
       Severity::kWarning, "nvidia_peermem", "/sys/module/nvidia_peermem"},
      {"AcsRedirect", "pcie-acs-enabled", [] { return dgx().setAcsAboveNic("mlx5_2", 0x5); },
       Severity::kError, "0000:4b:00.0", "ReqRedir+"},
      {"AcsSourceValidation", "pcie-acs-enabled", [] { return dgx().setAcsAboveNic("mlx5_5", 0x1); },
       Severity::kWarning, "0000:b9:00.0", "SrcValid+ ReqRedir-"},
      {"Config256", "pcie-acs-unknown", [] { return dgx().setBridgeConfigSize(256); }, Severity::kInfo,
       "pci bridges", "256 bytes"},
      {"Config64", "pcie-acs-unknown", [] { return dgx().setBridgeConfigSize(64); }, Severity::kInfo,
       "pci bridges", "64 bytes"},
      {"NicX8", "pcie-link-degraded", [] { return dgx().degradeNicLink("mlx5_1", 8, "32.0 GT/s PCIe"); },
       Severity::kError, "mlx5_1", "current_link_width"},
      {"NicGen3", "pcie-link-degraded", [] { return dgx().degradeNicLink("mlx5_1", 16, "8.0 GT/s PCIe"); },
       Severity::kError, "mlx5_1", "8 GT/s"},
      {"NicSlowButEnough", "pcie-link-degraded",
       [] {
         return dgx()
             .setRate("mlx5_7", 1, "100 Gb/sec (4X EDR)")
             .degradeNicLink("mlx5_7", 16, "16.0 GT/s PCIe");
       },
       Severity::kWarning, "mlx5_7", "16 GT/s"},
      {"GpuX8", "pcie-link-degraded", [] { return dgx().degradeGpuLink(2, 8, "32.0 GT/s PCIe"); },
       Severity::kWarning, "gpu2", "max_link_width"},
      {"NicFar", "gpu-nic-far", [] { return dgx().moveNicFar("mlx5_0"); }, Severity::kWarning, "gpu0",
       "sysfs"},
      {"IfnameNoMatch", "nccl-socket-ifname-invalid",
       [] { return dgx().setEnv("NCCL_SOCKET_IFNAME", "net1"); }, Severity::kError, "NCCL_SOCKET_IFNAME",
       "NCCL_SOCKET_IFNAME=net1"},
      {"IfnameExactPrefix", "nccl-socket-ifname-invalid",
       [] { return dgx().setEnv("NCCL_SOCKET_IFNAME", "=eth"); }, Severity::kError, "NCCL_SOCKET_IFNAME",
       "=eth"},
      {"IfnameExcludeAll", "nccl-socket-ifname-invalid",
       [] { return dgx().setEnv("NCCL_SOCKET_IFNAME", "^eth,ib,lo"); }, Severity::kError,
       "NCCL_SOCKET_IFNAME", "^eth,ib,lo"},
      {"IfnameDown", "nccl-socket-ifname-invalid", [] { return dgx().setNetdevOperstate("eth0", "down"); },
       Severity::kError, "NCCL_SOCKET_IFNAME", "/sys/class/net/eth0/operstate"},
      {"HcaMissing", "nccl-ib-hca-invalid", [] { return dgx().setEnv("NCCL_IB_HCA", "=mlx5_9"); },
       Severity::kError, "NCCL_IB_HCA", "no mlx5_9"},
      {"HcaNoSuchPort", "nccl-ib-hca-invalid", [] { return dgx().setEnv("NCCL_IB_HCA", "mlx5_0:2"); },
       Severity::kError, "NCCL_IB_HCA", "no port 2"},
      {"HcaPortDown", "nccl-ib-hca-invalid",
       [] {
         return dgx().setEnv("NCCL_IB_HCA", "=mlx5_0").setPortState("mlx5_0", 1, "1: DOWN", "3: Disabled");
       },
       Severity::kError, "NCCL_IB_HCA", "mlx5_0/ports/1/state"},
      {"HcaOneOfTwoMissing", "nccl-ib-hca-invalid",
       [] { return dgx().setEnv("NCCL_IB_HCA", "=mlx5_0,mlx5_12"); }, Severity::kWarning, "NCCL_IB_HCA",
       "no mlx5_12"},
      {"HcaExcludesAll", "nccl-ib-hca-invalid", [] { return dgx().setEnv("NCCL_IB_HCA", "^mlx5"); },
       Severity::kError, "NCCL_IB_HCA", "NCCL_IB_HCA=^mlx5"},
      {"GidIndexEmpty", "nccl-gid-index-invalid", [] { return roce().setEnv("NCCL_IB_GID_INDEX", "7"); },
       Severity::kError, "NCCL_IB_GID_INDEX", "gids/7"},
      {"GidIndexV1", "nccl-gid-index-invalid", [] { return roce().setEnv("NCCL_IB_GID_INDEX", "2"); },
       Severity::kWarning, "NCCL_IB_GID_INDEX", "IB/RoCE v1"},
      {"GidIndexGarbage", "nccl-gid-index-invalid",
       [] { return roce().setEnv("NCCL_IB_GID_INDEX", "three"); }, Severity::kError, "NCCL_IB_GID_INDEX",
       "NCCL_IB_GID_INDEX=three"},
      {"GidIndexOnIb", "nccl-gid-index-invalid", [] { return dgx().setEnv("NCCL_IB_GID_INDEX", "3"); },
       Severity::kError, "NCCL_IB_GID_INDEX", "mlx5_0/ports/1/gids/3"},
      {"RoceMtu1500", "roce-mtu-small", [] { return roce().setNetdevMtu("ens5f0np0", 1500); },
       Severity::kWarning, "ens5f0np0", "/sys/class/net/ens5f0np0/mtu"},
      {"BtlIfUnset", "ompi-btl-if-unset", [] { return dgx().unsetEnv("OMPI_MCA_btl_tcp_if_include"); },
       Severity::kWarning, "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_btl_tcp_if_exclude unset"},
      {"HcollUnset", "ompi-coll-conflict", [] { return dgx().unsetEnv("OMPI_MCA_coll_hcoll_enable"); },
       Severity::kWarning, "OMPI_MCA_coll_hcoll_enable", "OMPI_MCA_coll_hcoll_enable unset"},
      {"UccOn", "ompi-coll-conflict", [] { return dgx().setEnv("OMPI_MCA_coll_ucc_enable", "1"); },
       Severity::kWarning, "OMPI_MCA_coll_ucc_enable", "OMPI_MCA_coll_ucc_enable=1"},
      {"HostUnresolvable", "mpi-hostfile-unresolvable", dgx, Severity::kError, "worker-1", "hostfile",
       nullptr,
       [] {
         HostfileCheck h;
         h.path = "/etc/mpi/hostfile";
         h.hosts = {{"worker-0", 1, true, "10.0.0.2"}, {"worker-1", 2, false, "not found"}};
         return h;
       }},
      {"IbDisabled", "nccl-ib-disabled", [] { return dgx().setEnv("NCCL_IB_DISABLE", "1"); },
       Severity::kWarning, "NCCL_IB_DISABLE", "NCCL_IB_DISABLE=1"},
      {"NetSocket", "nccl-ib-disabled", [] { return roce().setEnv("NCCL_NET", "Socket"); },
       Severity::kWarning, "NCCL_NET", "NCCL_NET=Socket"},
      {"UcxDeviceAbsent", "ucx-net-devices-invalid",
       [] { return dgx().setEnv("UCX_NET_DEVICES", "mlx5_12:1"); }, Severity::kError, "UCX_NET_DEVICES",
       "mlx5_12/ports/1/state"},
      {"UcxOneOfTwoDown", "ucx-net-devices-invalid",
       [] {
         return dgx()
             .setEnv("UCX_NET_DEVICES", "mlx5_0:1,mlx5_1:1")
             .setPortState("mlx5_1", 1, "1: DOWN", "3: Disabled");
       },
       Severity::kWarning, "UCX_NET_DEVICES", "not ACTIVE"},
      {"UcxTcpNetdevAbsent", "ucx-net-devices-invalid",
       [] { return roce().setEnv("UCX_NET_DEVICES", "net1"); }, Severity::kError, "UCX_NET_DEVICES",
       "/sys/class/net/net1/operstate"},
      {"MultiRailNoPolicyRouting", "roce-multirail-no-policy-routing",
       [] { return multiRail({.policy_routing = false}); }, Severity::kError, "ens3f0np0", "ip -4 rule"},
      {"MultiRailStrictRpFilter", "roce-multirail-rp-filter", [] { return multiRail({.rp_filter = 1}); },
       Severity::kWarning, "ens1f0np0", "/proc/sys/net/ipv4/conf/ens1f0np0/rp_filter"},
      {"MultiRailArpDefaults", "roce-multirail-arp",
       [] { return multiRail({.arp_ignore = 0, .arp_announce = 0}); }, Severity::kWarning, "ens2f0np0",
       "conf/ens2f0np0/arp_announce"},
      {"PfcOff", "roce-pfc-disabled", [] { return multiRail({.pfc_mask = 0}); }, Severity::kWarning,
       "ens0f0np0", "pfc-enabled none"},
      {"TcUnsetPfcOn3", "nccl-ib-tc-not-lossless", [] { return multiRail().unsetEnv("NCCL_IB_TC"); },
       Severity::kWarning, "NCCL_IB_TC", "pfc-enabled 3"},
      {"EcnRpOffOnPrio3", "roce-ecn-disabled", [] { return multiRail().setEcn("ens5f0np0", 0xff, 0xf7); },
       Severity::kWarning, "ens5f0np0", "/sys/class/net/ens5f0np0/ecn/roce_rp/enable/3"},
      {"IbWithoutIpoib", "ib-ipoib-missing", ibWithoutIpoib, Severity::kInfo, "ib_ipoib",
       "/sys/module/ib_ipoib"},
      {"IbWithoutIpoibNamed", "ib-ipoib-missing",
       [] { return ibWithoutIpoib().setEnv("OMPI_MCA_btl_tcp_if_include", "ib0"); }, Severity::kError,
       "ib_ipoib", "OMPI_MCA_btl_tcp_if_include=ib0"},
      {"NoRdmaCm", "rdma-cm-missing", dgx, Severity::kWarning, "/dev/infiniband/rdma_cm", "uverbs0",
       [](const fs::path& dir) { fs::remove(dir / "dev/infiniband/rdma_cm"); }},
  };
  return kCases;
}

class DoctorRuleFires : public ::testing::TestWithParam<Case> {};

TEST_P(DoctorRuleFires, OnTreeWithTheProblem) {
  const Case& c = GetParam();
  fs::path dir = tempDir(c.name);
  c.make().write(dir);
  if (c.after_write) c.after_write(dir);
  std::optional<HostfileCheck> hostfile;
  if (c.hostfile) hostfile = c.hostfile();
  auto all = doctorOn(dir, hostfile ? &*hostfile : nullptr);
  auto found = withId(all, c.id);
  ASSERT_FALSE(found.empty()) << c.id << " did not fire; findings:\n" << describe(all);
  const Finding* match = nullptr;
  for (const auto& f : found)
    if (f.subject == c.subject) match = &f;
  ASSERT_NE(match, nullptr) << "no " << c.id << " finding about " << c.subject << "; findings:\n"
                            << describe(all);
  EXPECT_EQ(match->severity, c.severity) << describe(found);
  EXPECT_FALSE(match->message.empty());
  EXPECT_FALSE(match->fix.empty());
  bool evidence = false;
  for (const auto& e : match->evidence) {
    EXPECT_FALSE(e.source.empty());
    evidence = evidence || e.text.find(c.evidence) != std::string::npos ||
               e.source.find(c.evidence) != std::string::npos;
  }
  EXPECT_TRUE(evidence) << "no evidence mentions '" << c.evidence << "' in " << c.id;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Doctor, DoctorRuleFires, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// The healthy presets: no error, no warning, and no finding at all.
TEST(DoctorRules, HealthyDgxH100IsSilent) {
  fs::path dir = tempDir("healthy-dgx");
  railkit::testing::buildHealthyDgxH100(dir);
  auto all = doctorOn(dir);
  EXPECT_TRUE(all.empty()) << describe(all);
}

TEST(DoctorRules, HealthyRoceIsSilent) {
  fs::path dir = tempDir("healthy-roce");
  railkit::testing::buildHealthyRoce(dir);
  auto all = doctorOn(dir);
  EXPECT_TRUE(all.empty()) << describe(all);
}

// All rails in one subnet, done right: policy routing, rp_filter 2, ARP
// sysctls, PFC on NCCL's priority, ECN on. Nothing fires.
TEST(DoctorRules, HealthyRoceMultiRailIsSilent) {
  fs::path dir = tempDir("healthy-multirail");
  multiRail().write(dir);
  auto all = doctorOn(dir);
  EXPECT_TRUE(all.empty()) << describe(all);
}

// One run reports every problem: with NCCL_IB_HCA naming no device, the GID
// index is still checked, so correcting the HCA list shows no new error.
TEST(DoctorRules, HcaFixRevealsNoNewError) {
  fs::path dir = tempDir("hca-fix");
  roce().setEnv("NCCL_IB_HCA", "=mlx5_9").setEnv("NCCL_IB_GID_INDEX", "7").write(dir);
  auto before = doctorOn(dir);
  EXPECT_EQ(withId(before, "nccl-ib-hca-invalid").size(), 1u) << describe(before);
  EXPECT_EQ(withId(before, "nccl-gid-index-invalid").size(), 1u) << describe(before);
  roce().setEnv("NCCL_IB_HCA", "=mlx5_0,mlx5_1").setEnv("NCCL_IB_GID_INDEX", "7").write(dir);
  auto after = doctorOn(dir);
  EXPECT_TRUE(withId(after, "nccl-ib-hca-invalid").empty()) << describe(after);
  EXPECT_FALSE(withId(after, "nccl-gid-index-invalid").empty()) << describe(after);
  for (const auto& f : after) {
    bool seen = false;
    for (const auto& b : before)
      seen = seen || (b.id == f.id && b.subject == f.subject && b.severity <= f.severity);
    EXPECT_TRUE(seen) << "new after fixing NCCL_IB_HCA: [" << f.id << "] " << f.subject << "\nbefore:\n"
                      << describe(before);
  }
  fs::remove_all(dir);
}

// Every rule in the table has a firing case above (a new rule needs one).
TEST(DoctorRules, EveryRuleHasAFiringCase) {
  std::set<std::string> covered;
  for (const auto& c : cases()) covered.insert(c.id);
  for (const auto& r : railkit::doctor::allRules())
    EXPECT_TRUE(covered.count(r.id)) << r.id << " has no test case";
}

TEST(DoctorRules, TableSortedUniqueAndDocumented) {
  const auto& rules = railkit::doctor::allRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(std::string(rules[i - 1].id), std::string(rules[i].id));
    }
    EXPECT_EQ(std::string(rules[i].fix).rfind("Fix", 0), 0u) << rules[i].id;
    EXPECT_EQ(railkit::doctor::findRule(rules[i].id), &rules[i]);
  }
  EXPECT_EQ(railkit::doctor::findRule("nosuch"), nullptr);
}

// Near misses: trees that look like a breakage but are fine.
struct Quiet {
  const char* name;
  const char* id;
  std::function<NodeBuilder()> make;
};

class DoctorRuleQuiet : public ::testing::TestWithParam<Quiet> {};

TEST_P(DoctorRuleQuiet, DoesNotFire) {
  const Quiet& q = GetParam();
  fs::path dir = tempDir(std::string("quiet-") + q.name);
  q.make().write(dir);
  auto all = doctorOn(dir);
  EXPECT_TRUE(withId(all, q.id).empty()) << describe(all);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Doctor, DoctorRuleQuiet,
    ::testing::Values(
        Quiet{"VfsInExclusiveMode", "rdma-netns-shared",
              [] { return dgx().addVfs("mlx5_0", 4).setNetnsMode("N"); }},
        Quiet{"GpuIdleSpeed", "pcie-link-degraded",
              [] { return dgx().degradeGpuLink(3, 16, "2.5 GT/s PCIe"); }},
        Quiet{"AcsCapableButOff", "pcie-acs-enabled", [] { return dgx().setAcsAboveNic("mlx5_0", 0x0); }},
        Quiet{"IfnameExclude", "nccl-socket-ifname-invalid",
              [] { return dgx().setEnv("NCCL_SOCKET_IFNAME", "^docker,lo"); }},
        Quiet{"IfnameLoUnknown", "nccl-socket-ifname-invalid",
              [] { return dgx().setEnv("NCCL_SOCKET_IFNAME", "=lo"); }},
        Quiet{"HcaPrefixWithPort", "nccl-ib-hca-invalid",
              [] { return dgx().setEnv("NCCL_IB_HCA", "mlx5:1"); }},
        Quiet{"HcaExcludeSome", "nccl-ib-hca-invalid",
              [] { return dgx().setEnv("NCCL_IB_HCA", "^mlx5_0,mlx5_1"); }},
        Quiet{"GidIndexAuto", "nccl-gid-index-invalid",
              [] { return roce().setEnv("NCCL_IB_GID_INDEX", "-1"); }},
        Quiet{"GidIndexV2LinkLocal", "nccl-gid-index-invalid",
              [] { return roce().setEnv("NCCL_IB_GID_INDEX", "1"); }},
        Quiet{"BtlExcludeSet", "ompi-btl-if-unset",
              [] {
                return dgx()
                    .unsetEnv("OMPI_MCA_btl_tcp_if_include")
                    .setEnv("OMPI_MCA_btl_tcp_if_exclude", "lo,ib");
              }},
        Quiet{"NoOmpiEnv", "ompi-btl-if-unset",
              [] {
                auto n = dgx();
                std::erase_if(n.spec().env, [](const auto& kv) { return kv.first.rfind("OMPI_", 0) == 0; });
                return n;
              }},
        Quiet{"OneInterfaceOnly", "ompi-btl-if-unset",
              [] {
                auto n = NodeBuilder::emptyPod();
                n.setEnv("OMPI_MCA_pml", "ob1");
                return n;
              }},
        Quiet{"UcxAll", "ucx-net-devices-invalid", [] { return dgx().setEnv("UCX_NET_DEVICES", "all"); }},
        Quiet{"UcxRdmaAndTcp", "ucx-net-devices-invalid",
              [] { return roce().setEnv("UCX_NET_DEVICES", "mlx5_3:1,eth0"); }},
        Quiet{"IbDisableZero", "nccl-ib-disabled", [] { return dgx().setEnv("NCCL_IB_DISABLE", "0"); }},
        Quiet{"IbDisabledWithoutRdma", "nccl-ib-disabled",
              [] { return NodeBuilder::emptyPod().setEnv("NCCL_IB_DISABLE", "1"); }},
        Quiet{"GidOnExtraNetdev", "roce-gid-netns",
              [] {
                return roce()
                    .setGidNetdev("mlx5_1", 1, 5, "net1")
                    .addNetdev(NetdevSpec{"net1", "1", "up", 9000, 0, ""});
              }}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
