#include "bench/ucx/ucx_config.h"

#include "bench/rendezvous.h"
#include "core/strings.h"

namespace railkit::bench::ucx {

std::vector<Setting> settingsFor(const TransportOptions& options,
                                 const std::vector<std::string>& rdma_ports) {
  std::vector<Setting> out;
  bool devices_named = false;
  for (const auto& kv : options.env) {
    auto eq = kv.find('=');
    // An empty value means unset, as for UCX itself.
    if (eq == std::string::npos || kv.rfind("UCX_", 0) != 0 || eq <= 4 || eq + 1 == kv.size()) continue;
    std::string name = kv.substr(4, eq - 4);
    if (name == "NET_DEVICES") devices_named = true;
    out.push_back({name, kv.substr(eq + 1)});
  }
  if (!devices_named && !options.data_interface.empty()) {
    std::string devices = options.data_interface;
    for (const auto& port : rdma_ports) devices += "," + port;
    out.push_back({"NET_DEVICES", devices});
  }
  return out;
}

std::string devicesInUse(const std::vector<Setting>& settings, const std::string& fallback) {
  for (const auto& s : settings) {
    if (s.name == "NET_DEVICES") return s.value;
  }
  return fallback;
}

std::string describeSettings(const std::vector<Setting>& settings) {
  std::string s;
  for (const auto& x : settings) {
    if (!s.empty()) s += " ";
    s += "UCX_" + x.name + "=" + x.value;
  }
  return s.empty() ? "UCX defaults" : s;
}

namespace {
// Fields are space separated; empty ones travel as "-".
std::string field(const std::string& s) {
  return s.empty() ? "-" : s;
}
std::string unfield(std::string_view s) {
  return s == "-" ? std::string() : std::string(s);
}
}  // namespace

std::string encodeCard(const PeerCard& card) {
  return "ucx1 " + field(card.address) + " " + field(card.host) + " " + field(card.interface) + " " +
         hexEncode(card.worker);
}

Result<PeerCard> decodeCard(const std::string& blob, int rank) {
  auto f = split(blob, ' ');
  auto bad = [&](const char* what) {
    return makeError(ErrorCode::kPeerLost, "rank " + std::to_string(rank) + " sent a bad ucx address (" +
                                               what + "); is every rank running --backend ucx?");
  };
  if (f.size() != 5 || f[0] != "ucx1") return bad("expected 'ucx1 ADDRESS HOST INTERFACE WORKER'");
  auto worker = hexDecode(f[4]);
  if (!worker || worker->empty()) return bad("worker address is not hex");
  return PeerCard{unfield(f[1]), unfield(f[2]), unfield(f[3]), *worker};
}

}  // namespace railkit::bench::ucx
