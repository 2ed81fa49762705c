// render --railkit-image (docs/render.md, "railkit from its own image"): every
// workload pod copies railkit from the railkit image into an emptyDir and
// runs that copy. The render with the image is the render without it plus
// exactly the copy (initContainer, volume, read-only mounts, absolute path),
// so everything the other render tests prove still holds; it lints clean.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/cli_run.h"
#include "core/version.h"
#include "k8s/lint/lint.h"
#include "k8s/render/emit.h"
#include "k8s/render/exporter.h"
#include "k8s/render/render.h"
#include "k8s/schema.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

constexpr const char* kRailkitImage = "registry.example.com/railkit:0.1.0";
constexpr const char* kTools[] = {"nccl-tests", "railkit", "perftest", "validate"};

Profile profileOf(const char* mode, const char* launcher, const char* tool) {
  Profile profile;
  profile.image = "registry.example.com/nccl:2.23";
  profile.mode = mode;
  profile.launcher = launcher;
  profile.fabric = "roce";
  profile.test.tool = tool;
  profile.hcas = {"mlx5_0", "mlx5_1"};
  profile.job_token = "fixed-job-token-for-tests-0123456789";
  profile.ssh_private_key = "-----BEGIN EC PRIVATE KEY-----\nfixed\n-----END EC PRIVATE KEY-----\n";
  profile.ssh_public_key = "ecdsa-sha2-nistp256 AAAAfixed railkit-test\n";
  return profile;
}

std::vector<RenderedObject> rendered(const Profile& profile) {
  auto objects = renderProfile(profile);
  EXPECT_TRUE(objects) << objects.error().message;
  return objects ? *objects : std::vector<RenderedObject>{};
}

// Takes the injection out of `node` (checking each piece on the way) and
// counts the pod specs that had it.
void removeInjection(json& node, int& pods, const std::string& where) {
  if (node.is_string()) {
    std::string text = node.get<std::string>();
    for (size_t at = text.find("/opt/railkit/railkit"); at != std::string::npos;
         at = text.find("/opt/railkit/railkit", at))
      text.replace(at, 20, "railkit");
    node = text;
    return;
  }
  if (node.is_array()) {
    for (auto& item : node) removeInjection(item, pods, where);
    return;
  }
  if (!node.is_object()) return;
  if (node.contains("containers")) {
    ++pods;
    ASSERT_TRUE(node.contains("initContainers")) << where;
    json& inits = node["initContainers"];
    ASSERT_FALSE(inits.empty()) << where;
    const json& init = inits[0];  // first: before a native sidecar and the test
    EXPECT_EQ(init["name"], "railkit-install") << where;
    EXPECT_EQ(init["image"], kRailkitImage) << where;
    EXPECT_EQ(init["command"], json({"/usr/local/bin/railkit", "install-self", "/opt/railkit"})) << where;
    const json& security = init["securityContext"];
    EXPECT_EQ(security["runAsNonRoot"], true) << where;
    EXPECT_EQ(security["runAsUser"], 65534) << where;
    EXPECT_EQ(security["allowPrivilegeEscalation"], false) << where;
    EXPECT_EQ(security["readOnlyRootFilesystem"], true) << where;
    EXPECT_EQ(security["capabilities"], json({{"drop", {"ALL"}}})) << where;
    EXPECT_FALSE(security.contains("privileged")) << where;
    EXPECT_TRUE(init["resources"].contains("limits")) << where;
    EXPECT_EQ(init["volumeMounts"], json::array({{{"name", "railkit-bin"}, {"mountPath", "/opt/railkit"}}}))
        << where;
    inits.erase(inits.begin());
    if (inits.empty()) node.erase("initContainers");
    json& volumes = node["volumes"];
    ASSERT_TRUE(volumes.is_array()) << where;
    auto volume = std::find_if(volumes.begin(), volumes.end(),
                               [](const json& v) { return v["name"] == "railkit-bin"; });
    ASSERT_NE(volume, volumes.end()) << where;
    EXPECT_EQ(*volume, json({{"name", "railkit-bin"}, {"emptyDir", {{"sizeLimit", "256Mi"}}}})) << where;
    volumes.erase(volume);
    if (volumes.empty()) node.erase("volumes");
    for (json& container : node["containers"]) {
      json& mounts = container["volumeMounts"];
      ASSERT_TRUE(mounts.is_array()) << where;
      auto mount = std::find_if(mounts.begin(), mounts.end(),
                                [](const json& m) { return m["name"] == "railkit-bin"; });
      ASSERT_NE(mount, mounts.end()) << where << " " << container["name"];
      EXPECT_EQ(*mount, json({{"name", "railkit-bin"}, {"mountPath", "/opt/railkit"}, {"readOnly", true}}));
      mounts.erase(mount);
      if (mounts.empty()) container.erase("volumeMounts");
    }
  }
  for (auto& [key, value] : node.items()) removeInjection(value, pods, where);
}

// A railkit the image's PATH would have to provide: `railkit env` where a
// command starts (a line, `$(`, `exec `, a quoted bash -c), not
// `/opt/railkit/railkit env`, a message ("railkit env found no ...") or a
// comment.
bool callsBareRailkit(const std::string& text) {
  static const std::regex bare("(^|[ ($'])railkit (env|bench|validate|wait-dns)");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '#') continue;  // a script's comment
    if (std::regex_search(line, bare)) return true;
  }
  return false;
}

TEST(K8sRenderInject, TheRenderWithTheImageIsTheRenderWithoutItPlusTheCopy) {
  const std::string sentence =
      std::string(" railkit comes from ") + kRailkitImage +
      ": an initContainer copies it into the emptyDir railkit-bin, mounted read-only "
      "at /opt/railkit; the image needs no railkit.";
  for (const char* mode : modeNames())
    for (const char* launcher : kLaunchers)
      for (const char* tool : kTools) {
        std::string where = std::string(mode) + " " + launcher + " " + tool;
        Profile plain = profileOf(mode, launcher, tool);
        Profile injected = plain;
        injected.railkit_image = kRailkitImage;
        auto without = rendered(plain);
        auto with = rendered(injected);
        ASSERT_EQ(with.size(), without.size()) << where;
        std::string plain_yaml = toYaml(without);
        EXPECT_EQ(plain_yaml.find("railkit-bin"), std::string::npos) << where;
        EXPECT_EQ(plain_yaml.find("/opt/railkit"), std::string::npos) << where;
        int pods = 0;
        for (size_t i = 0; i < with.size(); ++i) {
          std::string kind = with[i].object["kind"];
          EXPECT_EQ(with[i].file_name, without[i].file_name) << where;
          bool holds_pods =
              kind == "MPIJob" || kind == "Job" || kind == "JobSet" || kind == "TrainingRuntime";
          EXPECT_EQ(with[i].comment, without[i].comment + (holds_pods ? sentence : ""))
              << where << " " << kind;
          std::string yaml = emitYaml(with[i].object);  // the commands, not the comment
          EXPECT_FALSE(callsBareRailkit(yaml)) << where << " " << kind << "\n" << yaml;
          if (holds_pods) {
            EXPECT_NE(yaml.find("/opt/railkit/railkit "), std::string::npos) << where << " " << kind;
          }
          json object = with[i].object;
          int before = pods;
          removeInjection(object, pods, where + " " + kind);
          EXPECT_EQ(object, without[i].object) << where << " " << kind;
          EXPECT_EQ(pods > before, holds_pods) << where << " " << kind;
        }
        // MPIJob and Trainer's mpi policy: a launcher pod and a worker pod;
        // a Volcano Job: its master and worker tasks.
        bool two_pods = std::string(launcher) == "mpijob" || std::string(launcher) == "volcano-job" ||
                        (std::string(launcher) == "trainjob" && std::string(tool) == "nccl-tests");
        EXPECT_EQ(pods, two_pods ? 2 : 1) << where;
      }
}

TEST(K8sRenderInject, InjectedRendersLintClean) {
  RAILKIT_REQUIRE_SHARED();
  auto schemas = SchemaSet::load(railkit::testing::schemaDirs());
  ASSERT_TRUE(schemas) << schemas.error().message;
  for (const char* mode : modeNames())
    for (const char* launcher : kLaunchers)
      for (const char* tool : kTools) {
        Profile profile = profileOf(mode, launcher, tool);
        profile.railkit_image = kRailkitImage;
        std::string yaml = toYaml(rendered(profile));
        auto manifest = loadManifest(yaml, "rendered.yaml");
        ASSERT_TRUE(manifest) << manifest.error().message;
        LintInput input;
        input.manifests.push_back(std::move(*manifest));
        input.schemas = &*schemas;
        prepareLintInput(input);
        for (const Finding& finding : runLint(input)) {
          if (finding.id == "host-network" && std::string(mode) == "host-network") continue;
          EXPECT_EQ(finding.severity, Severity::kInfo)
              << mode << " " << launcher << " " << tool << ": " << finding.id << " " << finding.path << ": "
              << finding.message;
        }
      }
}

TEST(K8sRenderInject, ProfileFieldAndFlag) {
  auto parsed = parseProfile("image: nccl:1\nrailkitImage: reg/railkit:1\n", "p.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->railkit_image, "reg/railkit:1");
  EXPECT_TRUE(parseProfile("image: nccl:1\n", "p.yaml")->railkit_image.empty());

  auto dir = railkit::testing::freshTestDir("render-inject");
  std::string profile = (dir / "p.yaml").string();
  std::ofstream(profile) << "image: nccl:1\nrailkitImage: reg/railkit:from-profile\nlauncher: jobset\n"
                            "test: {tool: railkit}\n";
  using railkit::testing::runRailkit;
  auto from_profile = runRailkit("render --profile " + profile + " --job-token fixed-job-token-0123456789");
  ASSERT_EQ(from_profile.status, 0) << from_profile.err;
  EXPECT_NE(from_profile.out.find("image: \"reg/railkit:from-profile\""), std::string::npos);
  // The flag overrides the profile, as every render flag does.
  auto from_flag =
      runRailkit("render --profile " + profile +
                 " --railkit-image reg/railkit:from-flag --job-token fixed-job-token-0123456789");
  ASSERT_EQ(from_flag.status, 0) << from_flag.err;
  EXPECT_NE(from_flag.out.find("image: \"reg/railkit:from-flag\""), std::string::npos);
  EXPECT_EQ(from_flag.out.find("from-profile"), std::string::npos);
  // And on a profile without the field.
  std::ofstream(profile) << "image: nccl:1\nlauncher: jobset\ntest: {tool: railkit}\n";
  auto plain = runRailkit("render --profile " + profile + " --job-token fixed-job-token-0123456789");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("/opt/railkit"), std::string::npos);
  auto flag_only = runRailkit("render --profile " + profile +
                              " --railkit-image reg/railkit:2 --job-token fixed-job-token-0123456789");
  ASSERT_EQ(flag_only.status, 0) << flag_only.err;
  EXPECT_NE(flag_only.out.find("exec /opt/railkit/railkit bench all_reduce"), std::string::npos)
      << flag_only.out;
  std::filesystem::remove_all(dir);
}

// render exporter: railkit's image by default, its binary by absolute path
// (the image has no shell and no PATH lookup to rely on).
TEST(K8sRenderInject, ExporterRunsTheRailkitImage) {
  ExporterDeployment deployment;
  EXPECT_EQ(deployment.image, std::string("railkit:") + kRailkitVersion);
  auto objects = renderExporter(deployment);
  ASSERT_TRUE(objects) << objects.error().message;
  const json& container = (*objects)[0].object["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["image"], std::string("railkit:") + kRailkitVersion);
  EXPECT_EQ(container["command"], json({"/usr/local/bin/railkit"}));
  EXPECT_EQ(container["args"][0], "exporter");
  auto cli = railkit::testing::runRailkit("render exporter");
  ASSERT_EQ(cli.status, 0) << cli.err;
  EXPECT_NE(cli.out.find(std::string("image: \"railkit:") + kRailkitVersion + "\""), std::string::npos);
  auto given = railkit::testing::runRailkit("render exporter --image reg/railkit:9");
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_NE(given.out.find("image: \"reg/railkit:9\""), std::string::npos);
}

}  // namespace
}  // namespace railkit::k8s::render
