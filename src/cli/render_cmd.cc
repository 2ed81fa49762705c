// railkit render --profile P.yaml [-o DIR]: manifests for an RDMA exposure
// mode and a launcher; `railkit render node-prep`: the node-side pieces.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "bench/job_token.h"
#include "cli/commands.h"
#include "k8s/render/render.h"

namespace railkit::cli {
namespace {

struct RenderOptions {
  std::string profile;
  std::string out_dir;
  std::string mode, launcher, image, ns, name;
  int nodes = 0;
  int gpus = 0;
  std::string job_token;  // --job-token; default: a random one per render
};

Result<k8s::render::Profile> loadProfile(const RenderOptions& options) {
  k8s::render::Profile profile;
  if (!options.profile.empty()) {
    std::ifstream in(options.profile, std::ios::binary);
    if (!in) return makeError(ErrorCode::kNotFound, options.profile + ": cannot open profile");
    std::ostringstream text;
    text << in.rdbuf();
    auto parsed = k8s::render::parseProfile(text.str(), options.profile);
    if (!parsed) return parsed;
    profile = *parsed;
  }
  if (!options.mode.empty()) profile.mode = options.mode;
  if (!options.launcher.empty()) profile.launcher = options.launcher;
  if (!options.image.empty()) profile.image = options.image;
  if (!options.ns.empty()) profile.ns = options.ns;
  if (!options.name.empty()) profile.name = options.name;
  if (options.nodes > 0) profile.nodes = options.nodes;
  if (options.gpus > 0) profile.gpus_per_node = options.gpus;
  return profile;
}

Status writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return makeError(ErrorCode::kIo, "cannot write " + path.string());
  return okStatus();
}

int emit(const std::vector<std::pair<std::string, std::string>>& files, const std::string& out_dir) {
  if (out_dir.empty()) {
    for (const auto& [name, text] : files) std::cout << "--- # " << name << "\n" << text;
    return kExitOk;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  for (const auto& [name, text] : files)
    if (auto status = writeFile(std::filesystem::path(out_dir) / name, text); !status)
      return reportError(status.error());
  std::cerr << "wrote " << files.size() << " files to " << out_dir << "\n";
  return kExitOk;
}

// The rendezvous secret for launchers that use railkit's env bootstrap:
// random per render unless given (a fixed one makes output reproducible).
Status setJobToken(k8s::render::Profile& profile, const std::string& given) {
  if (!given.empty()) {
    if (auto s = bench::checkJobToken(given, "--job-token"); !s) return s;
    profile.job_token = given;
    return okStatus();
  }
  if (!k8s::render::usesEnvBootstrap(profile.launcher)) return okStatus();
  auto token = bench::newJobToken();
  if (!token) return tl::unexpected(token.error());
  profile.job_token = *token;
  return okStatus();
}

int runRender(const RenderOptions& options) {
  auto profile = loadProfile(options);
  if (!profile) return reportError(profile.error());
  if (auto s = setJobToken(*profile, options.job_token); !s) return reportError(s.error());
  auto objects = k8s::render::renderProfile(*profile);
  if (!objects) return reportError(objects.error());
  if (options.out_dir.empty()) {
    std::cout << k8s::render::toYaml(*objects);
    return kExitOk;
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& object : *objects) files.emplace_back(object.file_name, k8s::render::toYaml(object));
  return emit(files, options.out_dir);
}

int runNodePrep(const RenderOptions& options) {
  auto profile = loadProfile(options);
  if (!profile) return reportError(profile.error());
  return emit(k8s::render::renderNodePrep(*profile), options.out_dir);
}

void addProfileFlags(CLI::App& command, RenderOptions& options) {
  command.add_option("--profile", options.profile, "profile YAML (see docs/render.md)");
  command.add_option("-o,--output-dir", options.out_dir, "write one file per object into DIR");
  command.add_option("--mode", options.mode, "rdma-shared sriov host-device dra gke-tcpxo host-network");
  command.add_option("--launcher", options.launcher, "mpijob indexed-job jobset trainjob");
  command.add_option("--image", options.image, "image with the NCCL stack and railkit");
  command.add_option("--namespace", options.ns, "namespace");
  command.add_option("--name", options.name, "job name");
  command.add_option("--nodes", options.nodes, "worker nodes");
  command.add_option("--gpus-per-node", options.gpus, "GPUs per node");
  command.add_option("--job-token", options.job_token,
                     "job token for the rendezvous Secret (indexed-job, jobset, trainjob; default: random per render)");
}

}  // namespace

void registerRender(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand("render", "Write Kubernetes manifests for an RDMA exposure mode and launcher");
  auto options = std::make_shared<RenderOptions>();
  addProfileFlags(*command, *options);
  auto* node_prep = command->add_subcommand("node-prep", "Node-side pieces: memlock spec, drop-in, tolerations");
  auto prep_options = std::make_shared<RenderOptions>();
  addProfileFlags(*node_prep, *prep_options);
  node_prep->callback([&context, prep_options] {
    context.action = [prep_options] { return runNodePrep(*prep_options); };
  });
  command->callback([&context, options, node_prep] {
    if (node_prep->parsed()) return;
    context.action = [options] { return runRender(*options); };
  });
}

}  // namespace railkit::cli
