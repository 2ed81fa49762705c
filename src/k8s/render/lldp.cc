// LLDP for validate: the socket of the node's lldpd, or of a rendered lldpd
// DaemonSet, mounted read-only into the validate pods.
#include "k8s/render/lldp.h"

#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kLldpVolume = "lldpd-socket";

std::string lldpdName(const Profile& profile) {
  return profile.name + "-lldpd";
}

std::string lldpValues() {
  std::string out;
  for (const LldpSource& source : lldpSources()) out += (out.empty() ? "" : ", ") + std::string(source.name);
  return out;
}

}  // namespace

const std::vector<LldpSource>& lldpSources() {
  static const std::vector<LldpSource> sources = {
      {"off", "no LLDP: validate's own lldpctl finds no lldpd in the pod, and rank 0 notes it"},
      {"node", "the node runs lldpd already: its /run/lldpd.socket is mounted read-only"},
      {"daemonset", "render also writes an lldpd DaemonSet (hostNetwork, image lldpImage)"},
  };
  return sources;
}

const char* defaultLldp() {
  return lldpSources().front().name;
}

Status checkLldp(const Profile& profile) {
  bool known = false;
  for (const LldpSource& source : lldpSources()) known = known || profile.lldp == source.name;
  if (!known)
    return makeError(ErrorCode::kUsage,
                     "profile: lldp '" + profile.lldp.substr(0, 40) + "': expected one of " + lldpValues());
  bool daemonset = profile.lldp == "daemonset";
  if (daemonset && profile.lldp_image.empty())
    return makeError(ErrorCode::kUsage,
                     "profile: lldp daemonset needs lldpImage (an image with Debian's lldpd package)");
  if (!daemonset && !profile.lldp_image.empty())
    return makeError(ErrorCode::kUsage, "profile: lldpImage goes with lldp daemonset");
  if (profile.lldp == defaultLldp()) return okStatus();
  if (profile.test.tool != "validate")
    return makeError(ErrorCode::kUsage,
                     "profile: lldp goes with test.tool validate (its --lldpctl reads the nodes' LLDP)");
  if (profile.fabric != "roce")
    return makeError(ErrorCode::kUsage, "profile: lldp goes with fabric roce (" + profile.fabric +
                                            " ports carry no LLDP from the switch)");
  return okStatus();
}

std::string lldpctlFlag(const Profile& profile) {
  if (profile.lldp == defaultLldp()) return "";
  return std::string(" --lldpctl \"lldpctl -u ") + kLldpPodSocket + " -f json\"";
}

void decorateForLldp(const Profile& profile, PodDecoration& decoration) {
  if (profile.lldp == defaultLldp()) return;
  // node: the socket file itself, type Socket, so a node without lldpd
  // fails the mount loudly instead of running validate without LLDP.
  // daemonset: the directory, created by whichever pod comes first, so the
  // order the pods start in does not matter, and a restarted lldpd's new
  // socket shows (a file mount would keep the old one).
  json volume =
      profile.lldp == "node"
          ? json{{"name", kLldpVolume}, {"hostPath", {{"path", kLldpNodeSocket}, {"type", "Socket"}}}}
          : json{{"name", kLldpVolume},
                 {"hostPath", {{"path", kLldpDaemonSetDir}, {"type", "DirectoryOrCreate"}}}};
  // Read-only: connecting to a socket is allowed on a read-only mount, and
  // the pod can neither replace nor remove it.
  std::string mount_path = profile.lldp == "node" ? kLldpPodSocket : kLldpPodDir;
  decoration.extra_volumes.push_back(volume);
  decoration.extra_mounts.push_back({{"name", kLldpVolume}, {"mountPath", mount_path}, {"readOnly", true}});
}

std::vector<RenderedObject> lldpObjects(const Profile& profile) {
  if (profile.lldp != "daemonset") return {};
  const std::string name = lldpdName(profile);
  const std::string socket = std::string(kLldpDaemonSetDir) + "/lldpd.socket";
  json labels = {{"app.kubernetes.io/name", name}};
  json capabilities = json::array();
  for (const char* capability : kLldpdCapabilities) capabilities.push_back(capability);
  // -d: in the foreground, logging to stderr (kubectl logs). -I: the rails
  // only, by the host's names (hostNetwork), so lldpd neither listens nor
  // advertises on the node's other ports.
  json container = {{"name", "lldpd"},
                    {"image", profile.lldp_image},
                    {"command", {"lldpd", "-d", "-u", socket, "-I", joined(profile.data_interfaces)}},
                    {"resources",
                     {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}},
                      {"limits", {{"cpu", "200m"}, {"memory", "64Mi"}}}}},
                    {"securityContext",
                     {{"allowPrivilegeEscalation", false},
                      {"capabilities", {{"drop", {"ALL"}}, {"add", capabilities}}},
                      {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
                    {"volumeMounts", {{{"name", kLldpVolume}, {"mountPath", kLldpDaemonSetDir}}}}};
  json spec = {{"hostNetwork", true},
               {"dnsPolicy", "ClusterFirstWithHostNet"},
               {"containers", {container}},
               {"volumes",
                {{{"name", kLldpVolume},
                  {"hostPath", {{"path", kLldpDaemonSetDir}, {"type", "DirectoryOrCreate"}}}}}}};
  return {{"lldpd-daemonset.yaml",
           "DaemonSet: lldpd on every node with hostNetwork, where the switch's LLDP frames arrive (the "
           "physical ports; a pod's VF or macvlan never hears them). It writes its socket into the host "
           "directory " +
               std::string(kLldpDaemonSetDir) +
               ", which the validate pods mount read-only. Not privileged: the capabilities lldpd needs "
               "only (docs/render.md \"LLDP for validate\").",
           {{"apiVersion", "apps/v1"},
            {"kind", "DaemonSet"},
            {"metadata", metadata(name, profile.ns)},
            {"spec",
             {{"selector", {{"matchLabels", labels}}},
              {"template", {{"metadata", {{"labels", labels}}}, {"spec", spec}}}}}}}};
}

}  // namespace railkit::k8s::render
