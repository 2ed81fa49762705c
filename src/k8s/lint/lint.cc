#include "k8s/lint/lint.h"

#include <algorithm>
#include <tuple>

namespace railkit::k8s {

const std::vector<std::string>& knownRdmaResourcePrefixes() {
  // rdma shared device plugin (rdma/*), network-operator host-device
  // (nvidia.com/hostdev), EFA (vpc.amazonaws.com/efa), and the VF names
  // commonly used with SR-IOV RDMA.
  static const std::vector<std::string> kPrefixes = {
      "rdma/",           "nvidia.com/hostdev", "vpc.amazonaws.com/efa", "nvidia.com/rdma",
      "nvidia.com/mlnx", "openshift.io/rdma",  "mellanox.com/"};
  return kPrefixes;
}

namespace {

void addDeclared(const YamlNode* node, const std::string& prefix, LintInput& input) {
  if (node == nullptr || !node->isScalar()) return;
  std::string name = node->value;
  input.rdma_resources.insert(name.find('/') == std::string::npos ? prefix + "/" + name : name);
}

}  // namespace

void prepareLintInput(LintInput& input) {
  input.dra = buildDraCatalog(input.manifests);
  for (const auto& manifest : input.manifests) {
    for (const Object& object : manifest->objects) {
      const YamlNode& root = *object.root;
      if (object.kind == "SriovNetworkNodePolicy") {
        const YamlNode* rdma = root.at({"spec", "isRdma"});
        if (rdma && rdma->text() == "true") {
          // The operator's default prefix differs by distribution.
          for (const char* prefix : {"openshift.io", "nvidia.com"})
            addDeclared(root.at({"spec", "resourceName"}), prefix, input);
        }
      } else if (object.kind == "SpiderMultusConfig") {
        // Spiderpool names the RDMA resource of each attachment (with its prefix).
        for (const char* block : {"macvlan", "ipvlan", "vlan"})
          addDeclared(root.at({"spec", block, "rdmaResourceName"}), "spidernet.io", input);
        // An IB VF is RDMA; an Ethernet VF is when its RDMA device moves with it.
        addDeclared(root.at({"spec", "ibsriov", "resourceName"}), "spidernet.io", input);
        const YamlNode* isolated = root.at({"spec", "sriov", "rdmaIsolation"});
        if (isolated != nullptr && isolated->text() == "true")
          addDeclared(root.at({"spec", "sriov", "resourceName"}), "spidernet.io", input);
      } else if (object.kind == "NicClusterPolicy") {
        // Both plugins carry their resource list in a JSON config string;
        // the names appear as "resourceName": "x" (prefix rdma/ or nvidia.com/).
        for (const char* plugin : {"rdmaSharedDevicePlugin", "sriovDevicePlugin"}) {
          const YamlNode* config = root.at({"spec", plugin, "config"});
          if (config == nullptr) continue;
          const std::string& text = config->text();
          size_t pos = 0;
          while ((pos = text.find("\"resourceName\"", pos)) != std::string::npos) {
            size_t open = text.find('"', text.find(':', pos) + 1);
            size_t close = open == std::string::npos ? open : text.find('"', open + 1);
            if (close == std::string::npos) break;
            std::string name = text.substr(open + 1, close - open - 1);
            input.rdma_resources.insert(
                (std::string(plugin) == "rdmaSharedDevicePlugin" ? "rdma/" : "nvidia.com/") + name);
            pos = close;
          }
        }
      }
    }
  }
}

Finding lintFinding(const RuleInfo& rule, Severity lowered, const Object& object, long line, std::string path,
                    std::string message, std::string fix) {
  Finding finding = findingOf(rule, lowered);
  finding.file = object.file;
  finding.line = line > 0 ? line : object.line;
  finding.object = object.ref();
  finding.subject = finding.object;
  finding.path = std::move(path);
  finding.message = std::move(message);
  finding.fix = std::move(fix);
  finding.evidence.push_back(Evidence{object.file, finding.line, finding.path});
  return finding;
}

Finding lintFinding(const RuleInfo& rule, const Object& object, long line, std::string path,
                    std::string message, std::string fix) {
  return lintFinding(rule, rule.severity, object, line, std::move(path), std::move(message), std::move(fix));
}

std::vector<Finding> runLint(const LintInput& input) {
  std::vector<Finding> findings;
  for (const Rule& rule : allRules()) rule.check(input, findings);
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.file, a.line, a.id) < std::tie(b.file, b.line, b.id);
  });
  return findings;
}

}  // namespace railkit::k8s
