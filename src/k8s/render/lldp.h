#pragma once
// Where `railkit validate` reads its nodes' LLDP neighbours from (profile
// key `lldp`, docs/render.md "LLDP for validate"). The switch's LLDP frames
// reach the physical port (the PF), never the VF, macvlan or claimed device
// a pod gets, so lldpd runs on the node: the node's own, or a rendered
// hostNetwork DaemonSet. The validate pods reach it through its Unix socket,
// mounted read-only from the host.
#include <string>
#include <vector>

#include "core/result.h"
#include "k8s/render/parts.h"

namespace railkit::k8s::render {

struct LldpSource {
  const char* name;     // the profile's `lldp:` value
  const char* meaning;  // one line for errors and docs
};
// Every value of `lldp:`, declared once; the first row is the default
// (defaultLldp(), profile.h).
const std::vector<LldpSource>& lldpSources();

// Where the validate pods find lldpd's socket: the same path whichever
// lldpd serves it.
inline constexpr const char* kLldpPodDir = "/run/railkit-lldp";
inline constexpr const char* kLldpPodSocket = "/run/railkit-lldp/lldpd.socket";
// The node's own lldpd (Debian's lldpd package; /var/run is /run).
inline constexpr const char* kLldpNodeSocket = "/run/lldpd.socket";
// The host directory the rendered DaemonSet's lldpd writes its socket into.
inline constexpr const char* kLldpDaemonSetDir = "/run/railkit-lldpd";
// What lldpd needs, found by running Debian's lldpd with each one dropped
// (tests/k8s/render_lldp_test.sh runs it with exactly these): NET_RAW for
// its packet sockets, NET_ADMIN for the LLDP multicast address on each port
// (and to drop to _lldpd cleanly), SETUID/SETGID/SYS_CHROOT for its privilege
// separation (_lldpd in a chroot), DAC_OVERRIDE to run lldpcli (mode 4750,
// _lldpd:adm), which reads its configuration and unpauses it.
inline constexpr const char* kLldpdCapabilities[] = {"NET_RAW", "NET_ADMIN",  "SETUID",
                                                     "SETGID",  "SYS_CHROOT", "DAC_OVERRIDE"};

// The profile's lldp and lldpImage fit together and the test (validate on RoCE).
Status checkLldp(const Profile& profile);
// validate's --lldpctl argument ("" with lldp off): lldpctl through the
// mounted socket, in double quotes (the word sits inside the single quotes
// of an MPI rank's bash -c).
std::string lldpctlFlag(const Profile& profile);
// The read-only socket volume and its mount for the worker pods.
void decorateForLldp(const Profile& profile, PodDecoration& decoration);
// The DaemonSet with lldp daemonset, nothing otherwise.
std::vector<RenderedObject> lldpObjects(const Profile& profile);

}  // namespace railkit::k8s::render
