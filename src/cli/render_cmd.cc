// railkit render --profile P.yaml [--output DIR]: manifests for an RDMA exposure
// mode and a launcher; `railkit render node-prep`: the node-side pieces.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/job_token.h"
#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "core/atomic_file.h"
#include "core/input_file.h"
#include "k8s/render/exporter.h"
#include "k8s/render/render.h"
#include "k8s/render/ssh_key.h"

namespace railkit::cli {
namespace {

struct RenderOptions {
  std::string profile;
  std::string out_dir;
  std::string mode, launcher, image, railkit_image, ns, name;
  std::optional<int> nodes;
  std::optional<int> gpus;
  std::string job_token;  // --job-token; default: a random one per render
  OutputOptions output;   // --json: the objects (or, with --output, the files written)
};

// A profile is a few hundred bytes of YAML; the cap only stops /dev/urandom
// or a wrong file from being parsed.
constexpr std::size_t kMaxProfileBytes = std::size_t{1} << 20;

// The same bounds the profile's nodes/gpusPerNode obey (profile.cc).
constexpr int kMaxNodes = 100000;
constexpr int kMaxGpusPerNode = 64;

Result<k8s::render::Profile> loadProfile(const RenderOptions& options) {
  k8s::render::Profile profile;
  if (!options.profile.empty()) {
    auto text = readInputFile(options.profile, {"profile", kMaxProfileBytes, false});
    if (!text) return tl::unexpected(text.error());
    auto parsed = k8s::render::parseProfile(*text, options.profile);
    if (!parsed) return parsed;
    profile = *parsed;
  }
  if (!options.mode.empty()) profile.mode = options.mode;
  if (!options.launcher.empty()) profile.launcher = options.launcher;
  if (!options.image.empty()) profile.image = options.image;
  if (!options.railkit_image.empty()) profile.railkit_image = options.railkit_image;
  if (!options.ns.empty()) profile.ns = options.ns;
  if (!options.name.empty()) profile.name = options.name;
  if (options.nodes) profile.nodes = *options.nodes;
  if (options.gpus) profile.gpus_per_node = *options.gpus;
  if (auto status = k8s::render::checkProfileValues(profile); !status) return tl::unexpected(status.error());
  return profile;
}

// Writes the files into --output (or prints them); `about` names each
// file's object for --json (empty for node-prep's plain files).
int emit(const std::vector<std::pair<std::string, std::string>>& files, const RenderOptions& options,
         const nlohmann::json& about = nlohmann::json::array()) {
  const std::string& out_dir = options.out_dir;
  if (out_dir.empty()) {
    nlohmann::json doc{{"files", nlohmann::json::array()}};
    for (const auto& [name, text] : files) doc["files"].push_back({{"file", name}, {"text", text}});
    auto st = emitOutput(options.output, doc, [&] {
      for (const auto& [name, text] : files) std::cout << "--- # " << name << "\n" << text;
    });
    return st ? kExitOk : reportError(st.error());
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec)
    return reportError(Error{
        ErrorCode::kIo, "render --output " + out_dir + ": cannot create the directory: " + ec.message()});
  // Each file is written beside its name and renamed: an interrupted render
  // leaves the previous manifest or the new one, never half of one.
  for (const auto& [name, text] : files)
    if (auto st = writeFileAtomic((std::filesystem::path(out_dir) / name).string(), text, "render -o"); !st)
      return reportError(st.error());
  nlohmann::json doc{{"output", out_dir}, {"files", nlohmann::json::array()}};
  for (std::size_t i = 0; i < files.size(); ++i) {
    nlohmann::json entry{{"file", files[i].first}};
    if (i < about.size()) entry.update(about[i]);
    doc["files"].push_back(std::move(entry));
  }
  auto st = emitOutput(options.output, doc,
                       [&] { std::cerr << "wrote " << files.size() << " files to " << out_dir << "\n"; });
  return st ? kExitOk : reportError(st.error());
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

// The key pair the pods of an MPI test over indexed pods share: new per
// render, like the job token.
Status setSshKeys(k8s::render::Profile& profile) {
  if (!k8s::render::needsSshKeys(profile)) return okStatus();
  auto pair = k8s::render::newSshKeyPair("railkit-" + profile.name);
  if (!pair) return tl::unexpected(pair.error());
  profile.ssh_private_key = pair->private_pem;
  profile.ssh_public_key = pair->authorized_line;
  return okStatus();
}

int runRender(const RenderOptions& options) {
  auto profile = loadProfile(options);
  if (!profile) return reportError(profile.error());
  if (auto s = setJobToken(*profile, options.job_token); !s) return reportError(s.error());
  if (auto s = setSshKeys(*profile); !s) return reportError(s.error());
  auto objects = k8s::render::renderProfile(*profile);
  if (!objects) return reportError(objects.error());
  if (options.out_dir.empty()) {
    // --json: the objects themselves, as `kubectl get -o json` lists them.
    nlohmann::json doc{{"objects", nlohmann::json::array()}};
    for (const auto& object : *objects) doc["objects"].push_back(object.object);
    auto st = emitOutput(options.output, doc, [&] { std::cout << k8s::render::toYaml(*objects); });
    return st ? kExitOk : reportError(st.error());
  }
  std::vector<std::pair<std::string, std::string>> files;
  nlohmann::json about = nlohmann::json::array();
  for (const auto& object : *objects) {
    files.emplace_back(object.file_name, k8s::render::toYaml(object));
    const auto& o = object.object;
    about.push_back({{"apiVersion", o.value("apiVersion", "")},
                     {"kind", o.value("kind", "")},
                     {"name", o.contains("metadata") ? o["metadata"].value("name", "") : ""}});
  }
  return emit(files, options, about);
}

int runNodePrep(const RenderOptions& options) {
  auto profile = loadProfile(options);
  if (!profile) return reportError(profile.error());
  // Spiderpool's node pieces follow the subnet plan: check it and fill its ranges first.
  if (profile->cni == "spiderpool")
    if (auto s = k8s::render::finishProfile(*profile); !s) return reportError(s.error());
  return emit(k8s::render::renderNodePrep(*profile), options);
}

struct ExporterRenderOptions {
  k8s::render::ExporterDeployment deployment;
  bool rule_file = false;
  RenderOptions output;  // --output DIR, --json
};

int runRenderExporter(const ExporterRenderOptions& options) {
  auto objects = k8s::render::renderExporter(options.deployment);
  if (!objects) return reportError(objects.error());
  if (options.rule_file) {
    std::cout << k8s::render::exporterRuleFile(options.deployment);
    auto st = stdoutWritten("rule file");
    return st ? kExitOk : reportError(st.error());
  }
  if (options.output.out_dir.empty()) {
    nlohmann::json doc{{"objects", nlohmann::json::array()}};
    for (const auto& object : *objects) doc["objects"].push_back(object.object);
    auto st = emitOutput(options.output.output, doc, [&] { std::cout << k8s::render::toYaml(*objects); });
    return st ? kExitOk : reportError(st.error());
  }
  std::vector<std::pair<std::string, std::string>> files;
  nlohmann::json about = nlohmann::json::array();
  for (const auto& object : *objects) {
    files.emplace_back(object.file_name, k8s::render::toYaml(object));
    about.push_back({{"apiVersion", object.object.value("apiVersion", "")},
                     {"kind", object.object.value("kind", "")},
                     {"name", object.object["metadata"].value("name", "")}});
  }
  return emit(files, options.output, about);
}

void addProfileFlags(CLI::App& command, RenderOptions& options) {
  command.add_option("--profile", options.profile, "profile YAML (see docs/render.md)");
  command.add_option("--output", options.out_dir, "write one file per object into DIR")->type_name("DIR");
  // The choices come from the tables (k8s/render/profile.h), so a new mode or launcher is listed here.
  const auto spaced = [](const auto& names) {
    std::string out;
    for (const char* name : names) out += (out.empty() ? "" : " ") + std::string(name);
    return out;
  };
  command.add_option("--mode", options.mode, spaced(k8s::render::modeNames()));
  command.add_option("--launcher", options.launcher, spaced(k8s::render::kLaunchers));
  command.add_option("--image", options.image,
                     "image with the NCCL stack (and railkit, without --railkit-image)");
  command.add_option(
      "--railkit-image", options.railkit_image,
      "railkit's image: an initContainer copies railkit from it into every pod (/opt/railkit), "
      "so --image needs only the NCCL stack");
  command.add_option("--namespace", options.ns, "namespace");
  command.add_option("--name", options.name, "job name");
  command.add_option("--nodes", options.nodes, "worker nodes")->check(wholeNumber(1, kMaxNodes));
  command.add_option("--gpus-per-node", options.gpus, "GPUs per node")
      ->check(wholeNumber(0, kMaxGpusPerNode));
  command.add_option("--job-token", options.job_token,
                     "job token for the rendezvous Secret (indexed-job, jobset, trainjob, volcano-job; "
                     "default: random per render)");
  addOutputFlags(command, options.output);
}

}  // namespace

void registerRender(CLI::App& app, CommandContext& context) {
  auto* command =
      app.add_subcommand("render", "Write Kubernetes manifests for an RDMA exposure mode and launcher");
  auto options = std::make_shared<RenderOptions>();
  addProfileFlags(*command, *options);
  auto* node_prep =
      command->add_subcommand("node-prep", "Node-side pieces: memlock spec, drop-in, tolerations");
  auto prep_options = std::make_shared<RenderOptions>();
  addProfileFlags(*node_prep, *prep_options);
  node_prep->callback(
      [&context, prep_options] { context.action = [prep_options] { return runNodePrep(*prep_options); }; });
  auto* exporter = command->add_subcommand(
      "exporter", "railkit exporter on every node: DaemonSet, Service, ServiceMonitor, PrometheusRule");
  auto exporter_options = std::make_shared<ExporterRenderOptions>();
  auto& deployment = exporter_options->deployment;
  exporter->add_option("--image", deployment.image, "railkit's image (its /usr/local/bin/railkit runs)")
      ->capture_default_str();
  exporter->add_option("--namespace", deployment.ns, "namespace (where Prometheus finds ServiceMonitors)")
      ->capture_default_str();
  exporter->add_option("--name", deployment.name, "name of every object")->capture_default_str();
  exporter->add_option("--port", deployment.port, "metrics port")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  exporter
      ->add_option("--interval", deployment.interval_s, "seconds between sysfs reads (exporter --interval)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  exporter->add_flag(
      "--pods", deployment.pods,
      "run exporter --pods (per-pod RDMA counters): adds the host's /proc read-only and runs as "
      "root with SYS_ADMIN and SYS_PTRACE only; without it the pod has no privilege at all");
  exporter->add_flag("--rule-file", exporter_options->rule_file,
                     "print the alerting rules as a Prometheus rule file instead (promtool check rules; a "
                     "Prometheus without the operator)");
  exporter->add_option("--output", exporter_options->output.out_dir, "write one file per object into DIR")
      ->type_name("DIR");
  addOutputFlags(*exporter, exporter_options->output.output);
  exporter_options->output.output.kind = "railkit.render/v1";  // the same document as render's
  exporter->callback([&context, exporter_options] {
    context.action = [exporter_options] { return runRenderExporter(*exporter_options); };
  });
  command->callback([&context, options, node_prep, exporter] {
    if (node_prep->parsed() || exporter->parsed()) return;
    context.action = [options] { return runRender(*options); };
  });
}

}  // namespace railkit::cli
