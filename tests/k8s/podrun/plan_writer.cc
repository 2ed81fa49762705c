#include "plan_writer.h"

#include <fstream>
#include <sstream>

#include "core/strings.h"

namespace railkit::podrun {
namespace {

namespace fs = std::filesystem;

Status writeFile(const fs::path& path, const std::string& content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) return makeError(ErrorCode::kIo, path.string() + ": cannot write");
  return {};
}

std::string octal(int mode) {
  std::ostringstream out;
  out << std::oct << mode;
  return out.str();
}

Status writeContainer(const ResolvedContainer& c, const fs::path& dir) {
  std::string argv, env, human, assignments, dirs, files, binds, volumes, security;
  for (const std::string& arg : c.argv) {
    argv += arg + '\0';
    if (!human.empty()) human += ' ';
    human += shellWord(arg);
  }
  for (const auto& [name, value] : c.env) {
    env += name + "=" + value + '\0';
    assignments += name + "=" + shellWord(value) + " \\\n";
  }
  for (const InjectedDir& d : c.dirs) dirs += octal(d.mode) + (d.read_only ? " ro " : " rw ") + d.path + "\n";
  for (const InjectedFile& f : c.files) {
    files += octal(f.mode) + " " + f.path + "\n";
    auto status = writeFile(dir / "root" / f.path.substr(1), f.content);
    if (!status) return status;
  }
  for (const HostMount& m : c.host_mounts)
    binds += std::string(m.read_only ? "ro " : "rw ") + m.host_path + " " + m.path + "\n";
  for (const PodVolumeMount& m : c.pod_volumes)
    volumes += std::string(m.read_only ? "ro " : "rw ") + m.volume + " " + m.path + "\n";
  if (c.run_as_user >= 0)
    security += "user " + std::to_string(c.run_as_user) + " " + std::to_string(c.run_as_group) + "\n";
  if (c.read_only_root) security += "read-only-root\n";
  for (auto [name, content] : {std::pair{"argv", &argv},
                               {"env", &env},
                               {"dirs", &dirs},
                               {"files", &files},
                               {"binds", &binds},
                               {"volumes", &volumes},
                               {"security", &security}}) {
    auto status = writeFile(dir / name, *content);
    if (!status) return status;
  }
  if (auto status = writeFile(dir / "image", c.image + "\n"); !status) return status;
  return writeFile(dir / "command.txt", assignments + human + "\n");
}

}  // namespace

Status writePlan(const Plan& plan, const fs::path& dir) {
  std::string pods, summary, notes;
  std::string controller;
  for (const ResolvedPod& pod : plan.pods) {
    const PlannedPod& p = pod.pod;
    pods += std::to_string(pod.node) + "\t" + p.name + "\t" + p.hostname + "\t" +
            (p.end == PlannedPod::End::kExits             ? "exits"
             : p.end == PlannedPod::End::kDeletedWhenDone ? "deleted-when-done"
                                                          : "outlives-launcher") +
            "\t" + p.role + "\t" + (p.job.empty() ? "-" : p.job) + "\t" + p.controller + "\n";
    if (p.controller != controller) summary += (controller = p.controller) + "\n";
    std::string ifs;
    for (const NetIf& netif : pod.netifs) ifs += (ifs.empty() ? "" : " ") + netif.name + "=" + netif.address;
    summary += "  " + p.name + " (node " + std::to_string(pod.node) + ", job " +
               (p.job.empty() ? "-" : p.job) + ", role " + p.role + ", host " + p.hostname +
               (p.published ? "." + p.subdomain : "") + ") " + ifs +
               (p.name == plan.report_pod ? "  <- rank 0's table" : "") + "\n";
    fs::path pod_dir = dir / "pods" / p.name;
    std::string netifs, containers, routes;
    for (const NetIf& netif : pod.netifs) {
      netifs += netif.name + " " + netif.address + (netif.data ? " data\n" : " ctrl\n");
      for (const auto& [dst, via] : netif.routes) routes += dst + " " + via + " " + netif.name + "\n";
    }
    for (const ResolvedContainer& c : pod.containers) {
      containers += c.kind + " " + c.name + "\n";
      auto status = writeContainer(c, pod_dir / "c" / c.name);
      if (!status) return status;
    }
    for (auto [name, content] : {std::pair{"hostname", p.hostname + "\n"},
                                 {"hosts", pod.hosts},
                                 {"netifs", netifs},
                                 {"routes", routes},
                                 {"containers", containers}}) {
      auto status = writeFile(pod_dir / name, content);
      if (!status) return status;
    }
  }
  for (const std::string& note : plan.notes) notes += note + "\n";
  std::string gateways;
  for (const std::string& gateway : plan.gateways) gateways += gateway + "\n";
  for (auto [name, content] : {std::pair{"pods.tsv", pods},
                               {"summary", summary},
                               {"notes", notes},
                               {"gateways", gateways},
                               {"report", plan.report_pod + "\n"}}) {
    auto status = writeFile(dir / name, content);
    if (!status) return status;
  }
  return {};
}

}  // namespace railkit::podrun
