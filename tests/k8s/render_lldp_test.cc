// lldp: where validate reads the nodes' LLDP (docs/render.md "LLDP for
// validate"): the node's lldpd or a rendered DaemonSet, its socket mounted
// read-only into the validate pods and named by validate's --lldpctl.
#include <gtest/gtest.h>

#include <functional>

#include "k8s/lint/lint.h"
#include "k8s/render/lldp.h"
#include "k8s/render/profile.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "render_test_profiles.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

Profile lldpProfile(const std::string& lldp, const std::string& mode, const std::string& launcher) {
  Profile profile = testing::validateTestProfile(mode, launcher);
  profile.name = "cabling";
  profile.data_interfaces = {"ens1f0", "ens2f0"};
  profile.lldp = lldp;
  if (lldp == "daemonset") profile.lldp_image = "registry.example.com/lldpd:1";
  return profile;
}

std::vector<RenderedObject> rendered(const Profile& profile) {
  auto objects = renderProfile(profile);
  EXPECT_TRUE(objects) << objects.error().message;
  return objects ? *objects : std::vector<RenderedObject>();
}

// Every pod spec (an object with containers) anywhere in `node`.
void podSpecs(const json& node, std::vector<const json*>& out) {
  if (node.is_object() && node.contains("containers")) out.push_back(&node);
  if (node.is_structured())
    for (const auto& item : node) podSpecs(item, out);
}

const json* named(const json& list, const std::string& name) {
  for (const auto& item : list)
    if (item.value("name", "") == name) return &item;
  return nullptr;
}

const std::string kFlag = " --lldpctl \"lldpctl -u /run/railkit-lldp/lldpd.socket -f json\"";

TEST(RenderLldp, ValidatePodsMountTheSocketReadOnlyAndNameItInLldpctl) {
  for (const char* lldp : {"node", "daemonset"})
    for (const char* launcher : kLaunchers) {
      SCOPED_TRACE(std::string(lldp) + " " + launcher);
      int workers = 0;
      for (const RenderedObject& object : rendered(lldpProfile(lldp, "sriov", launcher))) {
        if (object.object["kind"] == "DaemonSet") continue;
        std::vector<const json*> specs;
        podSpecs(object.object, specs);
        for (const json* spec : specs) {
          const json& main = (*spec)["containers"][0];
          // The pods that run a rank request the GPUs; the MPIJob launcher
          // only starts them and needs no socket.
          // const operator[] on an absent key is undefined (an assertion
          // in the sanitizer build): the launcher has no resources at all.
          const json limits = main.value("/resources/limits"_json_pointer, json::object());
          bool worker = limits.contains("nvidia.com/gpu");
          const json* volume =
              spec->contains("volumes") ? named((*spec)["volumes"], "lldpd-socket") : nullptr;
          ASSERT_EQ(volume != nullptr, worker) << main.dump();
          if (!worker) continue;
          ++workers;
          const json* mount = named(main["volumeMounts"], "lldpd-socket");
          ASSERT_NE(mount, nullptr) << main.dump();
          EXPECT_EQ((*mount)["readOnly"], true);
          if (std::string(lldp) == "node") {
            EXPECT_EQ((*volume)["hostPath"], json({{"path", "/run/lldpd.socket"}, {"type", "Socket"}}));
            EXPECT_EQ((*mount)["mountPath"], kLldpPodSocket);
          } else {
            EXPECT_EQ((*volume)["hostPath"],
                      json({{"path", kLldpDaemonSetDir}, {"type", "DirectoryOrCreate"}}));
            EXPECT_EQ((*mount)["mountPath"], kLldpPodDir);
          }
        }
      }
      EXPECT_GE(workers, 1);
      std::string yaml = toYaml(rendered(lldpProfile(lldp, "sriov", launcher)));
      // The flag ends validate's line: the indexed pods' script line, or the
      // MPI rank's bash -c '...' (double quotes inside its single quotes).
      std::string end = std::string(launcher) == "mpijob" ? "'" : "\n";
      EXPECT_NE(yaml.find("--expect-gpus 4" + kFlag + end), std::string::npos) << yaml;
    }
}

TEST(RenderLldp, OffRendersNoTraceOfLldp) {
  for (const char* launcher : kLaunchers) {
    std::string yaml = toYaml(rendered(lldpProfile("off", "sriov", launcher)));
    EXPECT_EQ(yaml.find("lldp"), std::string::npos) << launcher;
  }
  auto parsed = parseProfile("image: x\ntest: validate\n", "p.yaml");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->lldp, "off");
}

TEST(RenderLldp, DaemonSetRunsLldpdOnTheHostsRailsWithItsCapabilitiesOnly) {
  std::vector<RenderedObject> objects = rendered(lldpProfile("daemonset", "sriov", "jobset"));
  const json* daemonset = nullptr;
  for (const RenderedObject& object : objects)
    if (object.object["kind"] == "DaemonSet") daemonset = &object.object;
  ASSERT_NE(daemonset, nullptr);
  const json& spec = (*daemonset)["spec"]["template"]["spec"];
  EXPECT_EQ(spec["hostNetwork"], true);  // LLDP is heard on the physical ports only
  const json& container = spec["containers"][0];
  EXPECT_EQ(container["image"], "registry.example.com/lldpd:1");
  EXPECT_EQ(container["command"],
            json({"lldpd", "-d", "-u", "/run/railkit-lldpd/lldpd.socket", "-I", "ens1f0,ens2f0"}));
  const json& security = container["securityContext"];
  EXPECT_FALSE(security.contains("privileged"));
  EXPECT_EQ(security["allowPrivilegeEscalation"], false);
  EXPECT_EQ(security["capabilities"]["drop"], json({"ALL"}));
  json added = json::array();
  for (const char* capability : kLldpdCapabilities) added.push_back(capability);
  EXPECT_EQ(security["capabilities"]["add"], added);
  // lldpd writes its socket where the validate pods' read-only mount reads.
  EXPECT_EQ(named(spec["volumes"], "lldpd-socket")->at("hostPath")["path"], kLldpDaemonSetDir);
  EXPECT_EQ(named(container["volumeMounts"], "lldpd-socket")->at("mountPath"), kLldpDaemonSetDir);
  EXPECT_FALSE(named(container["volumeMounts"], "lldpd-socket")->contains("readOnly"));
}

TEST(RenderLldp, RefusedOutsideValidateOnRoce) {
  auto refusal = [](Profile profile) {
    auto objects = renderProfile(profile);
    EXPECT_FALSE(objects);
    return objects ? std::string() : objects.error().message;
  };
  Profile bench = lldpProfile("node", "sriov", "jobset");
  bench.test.tool = "railkit";
  EXPECT_NE(refusal(bench).find("test.tool validate"), std::string::npos);
  Profile infiniband = lldpProfile("node", "sriov", "jobset");
  infiniband.fabric = "infiniband";
  EXPECT_NE(refusal(infiniband).find("fabric roce"), std::string::npos);
  Profile no_image = lldpProfile("daemonset", "sriov", "jobset");
  no_image.lldp_image.clear();
  EXPECT_NE(refusal(no_image).find("lldpImage"), std::string::npos);
  Profile stray_image = lldpProfile("node", "sriov", "jobset");
  stray_image.lldp_image = "registry.example.com/lldpd:1";
  EXPECT_NE(refusal(stray_image).find("lldpImage goes with lldp daemonset"), std::string::npos);
  Profile unknown = lldpProfile("sidecar", "sriov", "jobset");
  EXPECT_NE(refusal(unknown).find("off, node, daemonset"), std::string::npos);
  Profile quoted = lldpProfile("daemonset", "sriov", "jobset");
  quoted.lldp_image = "x'$(reboot)";
  EXPECT_NE(refusal(quoted).find("lldpImage"), std::string::npos);
  auto parsed = parseProfile(
      "image: x\nfabric: roce\nlldp: daemonset\nlldpImage: r/lldpd:1\ntest: validate\n", "p.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->lldp, "daemonset");
  EXPECT_EQ(parsed->lldp_image, "r/lldpd:1");
  EXPECT_TRUE(renderProfile(*parsed));
}

// Every mode x launcher with each lldpd lints clean against the schemas;
// hostNetwork is by design on the lldpd DaemonSet (and in host-network mode).
TEST(RenderLldp, EveryRenderLintsClean) {
  RAILKIT_REQUIRE_SHARED();
  static auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  for (const char* lldp : {"node", "daemonset"})
    for (const char* mode : modeNames())
      for (const char* launcher : kLaunchers) {
        if (std::string(mode) == "gke-tcpxo") continue;  // fabric tcpxo: refused above
        std::string yaml = toYaml(rendered(lldpProfile(lldp, mode, launcher)));
        LintInput input;
        auto manifest = loadManifest(yaml, "rendered.yaml");
        ASSERT_TRUE(manifest) << manifest.error().message;
        input.manifests.push_back(std::move(*manifest));
        input.schemas = &*schemas;
        prepareLintInput(input);
        for (const Finding& finding : runLint(input)) {
          bool lldpd =
              (finding.subject + " " + finding.path).find("DaemonSet/cabling-lldpd") != std::string::npos;
          bool by_design = finding.id == "host-network" && (lldpd || std::string(mode) == "host-network");
          if (by_design) continue;
          EXPECT_EQ(finding.severity, Severity::kInfo)
              << lldp << " " << mode << " " << launcher << ": " << finding.id << " " << finding.path << ": "
              << finding.message;
        }
      }
}

}  // namespace
}  // namespace railkit::k8s::render
