// ib-ipoib-missing: InfiniBand ports get IP addresses only through IPoIB
// netdevs (ib0, ...), which the ib_ipoib module creates. Without it anything
// that addresses an IB port by IP (rdma_cm, MPI/UCX TCP or rdmacm over IB,
// NCCL_SOCKET_IFNAME=ib*) has nothing to use.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

// The settings that name an IPoIB interface: then IP on IB is needed, not optional.
std::vector<std::string> ibInterfaceSettings(const Environment& env) {
  std::vector<std::string> out;
  for (const char* key : {"NCCL_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_oob_tcp_if_include",
                          "UCX_NET_DEVICES"}) {
    auto v = lookup(env, key);
    if (!v) continue;
    std::string text = *v;
    for (size_t i = 0; i < text.size(); ++i) {
      bool start = i == 0 || text[i - 1] == ',' || text[i - 1] == '=' || text[i - 1] == '^';
      if (start && text.compare(i, 2, "ib") == 0 && text[0] != '^') {
        out.push_back(key);
        break;
      }
    }
  }
  return out;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  // ib_core is loaded wherever an IB port shows; not seeing it means the
  // module list is unreadable (unknown), not that ib_ipoib is missing.
  if (moduleLoaded(inv, "ib_ipoib") || !moduleLoaded(inv, "ib_core")) return {};
  for (const auto& n : inv.interfaces)
    if (n.type == "infiniband") return {};  // IPoIB netdevs exist (built in, or another name)
  std::vector<std::string> ports;
  for (const auto& d : inv.rdma_devices)
    for (const auto& p : d.ports)
      if (p.link_layer == "InfiniBand" && portUsable(p) && p.netdev.empty())
        ports.push_back(d.name + ":" + std::to_string(p.port));
  if (ports.empty()) return {};
  auto settings = ibInterfaceSettings(inv.process.env);
  std::vector<Evidence> evidence{
      {std::string(sys::paths::kModules) + "/ib_ipoib", std::nullopt, "absent"},
      {sys::paths::kClassNet, std::nullopt, "no infiniband (type 32) netdev for " + joinNames(ports, 4)}};
  for (const auto& key : settings) evidence.push_back(envEvidence(inv.process.env, key));
  return {makeFinding(
      kIbIpoibMissing, settings.empty() ? Severity::kInfo : Severity::kError, "ib_ipoib",
      "InfiniBand ports " + joinNames(ports, 4) + " have no IPoIB netdev and ib_ipoib is not loaded" +
          (settings.empty() ? ": nothing can address them by IP (rdma_cm, IP over IB)"
                            : ": " + joinNames(settings) + " names an ib* interface that cannot exist"),
      std::move(evidence),
      "modprobe ib_ipoib (persist in /etc/modules-load.d/), then give ib0.. their addresses")};
}

}  // namespace

extern const Rule kIbIpoibMissing = {
    {"ib-ipoib-missing", Severity::kError, "InfiniBand ports without IPoIB (ib_ipoib not loaded)",
     R"(An InfiniBand port needs no IP address for verbs traffic (NCCL, UCX rc/dc use LIDs), but anything that
finds a peer by IP does: rdma_cm (UCX rdmacm, MPI implementations and storage that connect through
it), TCP over the IB fabric, and NCCL_SOCKET_IFNAME / OMPI_MCA_btl_tcp_if_include set to ib*. Those
addresses live on IPoIB netdevs (ib0, ib1, ...), created by the ib_ipoib kernel module. When the IB
ports have no such netdev and the module is not loaded, this is an error if a setting names an ib*
interface and informational otherwise.)",
     R"(Fix:
  lsmod | grep ib_ipoib || modprobe ib_ipoib
  echo ib_ipoib > /etc/modules-load.d/ib_ipoib.conf
then configure addresses and MTU on ib0.. (for IB, IPoIB in connected or datagram mode).)"},
    check};

}  // namespace railkit::doctor
