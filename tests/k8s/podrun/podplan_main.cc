// railkit_podplan: the pod runner's planner (docs/render.md, "Proof: the pod runner").
//   railkit_podplan plan MANIFEST OUTDIR [--ssh-key-dir DIR] [--ctrl-net A.B.C] [--data-net A.B.C]
//   railkit_podplan compare MANIFEST_A MANIFEST_B
// plan writes the directory podrun.sh runs (plan_writer.h) and prints its
// summary; compare checks that two renders differ only in the test binary and
// its flags (compare.h). Exit 0 ok, 1 the commands differ otherwise, 2 bad
// input (one line on stderr).
#include <fstream>
#include <iostream>
#include <sstream>

#include "compare.h"
#include "plan_writer.h"

namespace {

using namespace railkit;
using namespace railkit::podrun;

Result<std::string> readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(ErrorCode::kNotFound, path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<Plan> planFile(const std::string& path, const PlanOptions& options) {
  auto text = readText(path);
  if (!text) return tl::unexpected(text.error());
  auto manifest = k8s::loadManifest(*text, path);
  if (!manifest) return tl::unexpected(manifest.error());
  return planManifest(**manifest, options);
}

int fail(const Error& error) {
  std::cerr << "railkit_podplan: " << error.message << "\n";
  return 2;
}

int run(const std::vector<std::string>& args) {
  if (args.size() < 3 || (args[0] != "plan" && args[0] != "compare")) {
    std::cerr << "usage: railkit_podplan plan MANIFEST OUTDIR [--ssh-key-dir DIR] [--ctrl-net A.B.C] "
                 "[--data-net A.B.C]\n"
                 "       railkit_podplan compare MANIFEST_A MANIFEST_B\n";
    return 2;
  }
  PlanOptions options;
  for (size_t i = 3; i + 1 < args.size(); i += 2) {
    if (args[i] == "--ctrl-net") {
      options.ctrl_net = args[i + 1];
    } else if (args[i] == "--data-net") {
      options.data_net = args[i + 1];
    } else if (args[i] == "--ssh-key-dir") {
      auto key = readText(args[i + 1] + "/id_rsa");
      auto pub = readText(args[i + 1] + "/id_rsa.pub");
      if (!key) return fail(key.error());
      if (!pub) return fail(pub.error());
      options.controllers.ssh_private_key = *key;
      options.controllers.ssh_public_key = *pub;
    } else {
      std::cerr << "railkit_podplan: unknown flag " << args[i] << "\n";
      return 2;
    }
  }
  if (args.size() % 2 == 0) {
    std::cerr << "railkit_podplan: " << args.back() << " needs a value\n";
    return 2;
  }
  if (args[0] == "compare") {
    auto a = planFile(args[1], options);
    if (!a) return fail(a.error());
    auto b = planFile(args[2], options);
    if (!b) return fail(b.error());
    auto diff = compareCommands(*a, *b);
    if (!diff) {
      std::cout << "FAIL: " << diff.error().message << "\n";
      return 1;
    }
    std::cout << (diff->empty() ? "identical commands\n" : *diff);
    return 0;
  }
  auto plan = planFile(args[1], options);
  if (!plan) return fail(plan.error());
  auto written = writePlan(*plan, args[2]);
  if (!written) return fail(written.error());
  auto summary = readText(args[2] + "/summary");
  std::cout << (summary ? *summary : "");
  for (const std::string& note : plan->notes) std::cout << "note: " << note << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return run(std::vector<std::string>(argv + 1, argv + argc));
}
