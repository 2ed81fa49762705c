// nccl-socket-ifname-mismatch: NCCL_SOCKET_IFNAME selects interfaces by
// prefix (or exactly with '='); when it selects none of the interfaces where
// NCCL runs, its bootstrap fails with "no socket interface found". In an
// MPIJob NCCL runs in the workers: a value the launcher forwards with -x is
// compared with the workers' interfaces, never with the launcher's own.
#include "core/name_list.h"
#include "k8s/lint/rules/mpi_launcher.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {
namespace {

// The pod's interfaces: eth0, the Multus/GKE attachments and the NICs its
// DRA claims name (dra.net config or a pinned ifName). nullopt where they are
// named by the node (host network), an annotation could not be read, or a
// claim brings NICs whose names it does not say (or is not in the input).
std::optional<std::vector<std::string>> podInterfaces(const PodFacts& pod) {
  if (pod.host_network || !pod.interfaces_known || !pod.dra.interfaces_known) return std::nullopt;
  std::vector<std::string> interfaces = {"eth0"};
  interfaces.insert(interfaces.end(), pod.interfaces.begin(), pod.interfaces.end());
  interfaces.insert(interfaces.end(), pod.dra.interfaces.begin(), pod.dra.interfaces.end());
  return interfaces;
}

// Empty when `value` selects one of `interfaces`, else the list for the message.
std::string missed(const std::string& value, const std::vector<std::string>& interfaces) {
  NameListSpec spec = parseNameList(value);
  std::string have;
  for (const std::string& name : interfaces) {
    if (nameListSelects(spec, name)) return "";
    have += (have.empty() ? "" : ", ") + name;
  }
  return have;
}

bool checkable(const std::string& value) {
  return !value.empty() && value.find('$') == std::string::npos;
}

void report(const PodFacts& pod, const ContainerFacts& container, const std::string& path,
            const std::string& value, const std::string& where, const std::string& have,
            std::vector<Finding>& out) {
  out.push_back(lintFinding(kNcclSocketIfnameMismatch, *pod.view.object, container.node->line, path,
                            "NCCL_SOCKET_IFNAME=" + value + " selects none of " + where + " (" + have + ")",
                            "name an interface the pod has (eth0 for the pod network)"));
}

// An MPIJob launcher: what it forwards with -x meets the workers.
void checkForwarded(const std::vector<PodFacts>& pods, const PodFacts& launcher,
                    const ContainerFacts& container, std::vector<Finding>& out) {
  auto value = forwardedValue(container, "NCCL_SOCKET_IFNAME");
  if (!value || !checkable(*value)) return;
  for (const PodFacts& worker : pods) {
    if (worker.view.object != launcher.view.object || worker.view.role != "Worker") continue;
    auto interfaces = podInterfaces(worker);
    if (!interfaces) continue;
    std::string have = missed(*value, *interfaces);
    if (!have.empty())
      report(launcher, container, container.path + ".command", *value,
             "the workers' interfaces, where -x sends it", have, out);
    return;  // one Worker template per MPIJob
  }
}

}  // namespace

void checkNcclSocketIfnameMismatch(const LintInput& input, std::vector<Finding>& out) {
  auto pods = allPods(input);
  for (const PodFacts& pod : pods) {
    for (const ContainerFacts& container : pod.containers) {
      // What a launcher forwards meets the workers; a launcher that only
      // starts ranks runs no NCCL itself (with runLauncherAsWorker it does).
      if (pod.view.role == "Launcher" && !container.init) checkForwarded(pods, pod, container, out);
      if (isPureLauncher(input, pod, container)) continue;
      auto interfaces = podInterfaces(pod);
      auto it = container.env.find("NCCL_SOCKET_IFNAME");
      if (!interfaces || it == container.env.end() || !checkable(it->second)) continue;
      std::string have = missed(it->second, *interfaces);
      if (!have.empty())
        report(pod, container, container.path + ".env.NCCL_SOCKET_IFNAME", it->second, "the pod's interfaces",
               have, out);
    }
  }
}

extern const Rule kNcclSocketIfnameMismatch = {
    {"nccl-socket-ifname-mismatch", Severity::kError,
     "NCCL_SOCKET_IFNAME names an interface the pod will not have",
     R"(NCCL_SOCKET_IFNAME names the interfaces NCCL's bootstrap and sockets may use. When it names
none the pod will have (net1 without a Multus attachment, a host name under the pod network,
net1 where the DRA claim's dra.net config names the NIC dranet0),
NCCL fails with `Bootstrap : no socket interface found` or picks the wrong network.)",
     R"(Fix: name an interface the pod really has where NCCL runs (the workers, for an MPIJob), or
compute it at start with railkit env.)"},
    checkNcclSocketIfnameMismatch};

}  // namespace railkit::k8s::rules
