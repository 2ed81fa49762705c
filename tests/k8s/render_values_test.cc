// Any value, well-formed output: a value in a profile or a flag can never
// change the structure of what render writes. Values of a shape their field
// does not allow are refused on input (exit 2, one line naming the field);
// what render writes itself keeps every reader's view of a value the same
// (YAML 1.1 readers such as kubectl's go-yaml end a line at CR, NEL and the
// line separator, even inside quotes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "k8s/render/emit.h"
#include "k8s/render/exporter.h"
#include "k8s/render/profile.h"
#include "k8s/render/render.h"
#include "k8s/render/values.h"
#include "support/process.h"
#include "support/test_support.h"

namespace railkit::k8s::render {
namespace {

using railkit::testing::ProcessSpec;
using railkit::testing::runProcess;

Profile goodProfile() {
  Profile profile;
  profile.image = "registry.example.com/nccl:2.23";
  profile.mode = "sriov";
  profile.launcher = "mpijob";
  profile.fabric = "roce";
  profile.hcas = {"mlx5_0:1", "mlx5_1:1"};
  return profile;
}

// The breakers a value can hold: a newline, a CR, NEL (U+0085), the line and
// paragraph separators (U+2028, U+2029), a quote, shell syntax, a byte that is
// not UTF-8.
const std::vector<std::string> kBreakers = {
    "x\nkind: Secret",
    "x\rkind: Secret",
    "x\xc2\x85kind",
    "x\xe2\x80\xa8kind",
    "x\xe2\x80\xa9kind",
    "x\"y",
    "x$(id)",
    "x`id`",
    "x;id",
    "x\xff",
    "x y",
    "x#y",
};

TEST(RenderValues, EveryBreakerIsRefusedNamingItsField) {
  struct Field {
    const char* name;
    void (*set)(Profile&, const std::string&);
  };
  const Field fields[] = {
      {"profile: image", [](Profile& p, const std::string& v) { p.image = v; }},
      {"profile: railkitImage", [](Profile& p, const std::string& v) { p.railkit_image = v; }},
      {"profile: lldpImage", [](Profile& p, const std::string& v) { p.lldp_image = v; }},
      {"profile: lldp", [](Profile& p, const std::string& v) { p.lldp = v; }},
      {"profile: resourceName", [](Profile& p, const std::string& v) { p.resource_name = v; }},
      {"profile: hcas",
       [](Profile& p, const std::string& v) {
         p.hcas = {"mlx5_0", v};
       }},
      {"profile: shmSize", [](Profile& p, const std::string& v) { p.shm_size = v; }},
      {"profile: nodeNames", [](Profile& p, const std::string& v) { p.subnets.node_names = {v}; }},
      {"profile: dataInterfaces", [](Profile& p, const std::string& v) { p.data_interfaces = {v}; }},
      {"profile: test.op", [](Profile& p, const std::string& v) { p.test.op = v; }},
  };
  for (const Field& field : fields) {
    for (const std::string& bad : kBreakers) {
      Profile profile = goodProfile();
      field.set(profile, bad);
      auto status = finishProfile(profile);
      ASSERT_FALSE(status) << field.name << " took " << printable(bad);
      EXPECT_EQ(status.error().code, ErrorCode::kUsage);
      EXPECT_NE(status.error().message.find(field.name), std::string::npos) << status.error().message;
      EXPECT_EQ(status.error().message.find('\n'), std::string::npos)
          << "one line: " << status.error().message;
      for (unsigned char c : status.error().message)
        EXPECT_TRUE(c >= 0x20 && c < 0x7f)
            << "the message shows the value printable: " << status.error().message;
    }
  }
}

TEST(RenderValues, WellFormedValuesPass) {
  Profile profile = goodProfile();
  profile.railkit_image = "registry.example.com:5000/team/railkit@sha256:0123abcd";
  profile.resource_name = "rdma/rdma_shared_device_a";
  profile.hcas = {"=mlx5_0:1", "^mlx5_1"};
  profile.shm_size = "1.5Gi";
  profile.data_pci_addresses = {"0000:17:00.0"};
  profile.data_interfaces = {"ens1f0"};
  auto status = finishProfile(profile);
  EXPECT_TRUE(status) << status.error().message;
}

TEST(RenderValues, ExporterNameNamespaceAndImageAreChecked) {
  for (const std::string& bad : kBreakers) {
    ExporterDeployment d;
    d.name = bad;
    EXPECT_FALSE(renderExporter(d)) << printable(bad);
    d = ExporterDeployment{};
    d.ns = bad;
    EXPECT_FALSE(renderExporter(d)) << printable(bad);
    d = ExporterDeployment{};
    d.image = bad;
    EXPECT_FALSE(renderExporter(d)) << printable(bad);
  }
  // A name could otherwise leave --output (a file name) or end the alert's
  // selector: upper case and dots are not DNS labels either.
  for (const char* bad : {"../x", "a/b", "Exporter", "x.y", "-x"}) {
    ExporterDeployment d;
    d.name = bad;
    EXPECT_FALSE(renderExporter(d)) << bad;
  }
  EXPECT_TRUE(renderExporter(ExporterDeployment{}));
}

TEST(RenderValues, TheAlertsSelectorQuotesTheName) {
  ExporterDeployment d;
  d.name = "railkit-exporter";
  std::string rules = exporterRuleFile(d);
  EXPECT_NE(rules.find("up{job=\\\"railkit-exporter\\\"} == 0"), std::string::npos) << rules;
}

// What render writes itself: a string with a line break that some reader
// would read differently is never a `|` block, and every non-ASCII byte is
// escaped inside quotes, so both YAML versions read back the same value.
TEST(RenderValues, EmitterKeepsEveryReadersValue) {
  for (const std::string& text : {std::string("a\r\nb\n"), std::string("a\xc2\x85\nb\n"),
                                  std::string("a\xe2\x80\xa8\nb\n"), std::string("a\tb\nc\n")}) {
    std::string yaml = emitYaml(nlohmann::json{{"script", text}});
    EXPECT_EQ(yaml.find('|'), std::string::npos) << yaml;
    for (unsigned char c : yaml)
      EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << "raw byte " << int(c) << " in " << yaml;
    EXPECT_EQ(std::count(yaml.begin(), yaml.end(), '\n'), 1) << "one line: " << yaml;
  }
  std::string plain = emitYaml(nlohmann::json{{"script", "echo a\necho b\n"}});
  EXPECT_EQ(plain, "script: |\n  echo a\n  echo b\n");
  // Invalid UTF-8 that reached the emitter is replaced, not an exception.
  EXPECT_NO_THROW(emitYaml(nlohmann::json{{"k", std::string("a\xff")}}));
}

TEST(RenderValues, ObjectCommentsStayOneCommentLine) {
  RenderedObject object;
  object.file_name = "x.yaml";
  object.comment = "railkit comes from a\rb\xe2\x80\xa8kind: Secret\nc";
  object.object = nlohmann::json{{"kind", "ConfigMap"}};
  std::string yaml = toYaml(object);
  for (size_t start = 0; start < yaml.size();) {
    size_t end = yaml.find('\n', start);
    std::string line = yaml.substr(start, end - start);
    if (line.rfind("kind", 0) != 0) {
      EXPECT_EQ(line.rfind("#", 0), 0u) << "not a comment: " << line;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  for (unsigned char c : yaml) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << yaml;
}

// The CLI: a flag's value is refused with exit 2 and one line, never a crash.
TEST(RenderValues, CliRefusesBadFlagValuesWithOneLine) {
  const std::string profile = (railkit::testing::sourceDir() / "examples/profiles/rdma-shared.yaml").string();
  const std::vector<std::vector<std::string>> runs = {
      {"render", "--profile", profile, "--railkit-image", "r\nkind: Secret"},
      {"render", "--profile", profile, "--image", "x\xff"},
      {"render", "--profile", profile, "--image", "x\xe2\x80\xa8y", "--json"},
      {"render", "node-prep", "--profile", profile, "--railkit-image", "a$(id)"},
      {"render", "exporter", "--name", "x\"} or vector(1) or up{job=\"y"},
      {"render", "exporter", "--name", "x\xff", "--json"},
      {"render", "exporter", "--image", "a b"},
  };
  for (const auto& args : runs) {
    std::vector<std::string> argv = {railkit::testing::railkitBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = runProcess(ProcessSpec(argv));
    EXPECT_EQ(result.status, 2) << printable(args.back()) << ": " << result.err;
    EXPECT_TRUE(result.oneErrorLine()) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

}  // namespace
}  // namespace railkit::k8s::render
