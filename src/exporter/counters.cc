#include "exporter/counters.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/strings.h"
#include "sys/paths.h"

namespace railkit::exporter {
namespace {

// Every IB PortCounters file the kernel shows under counters/ (ib_core's
// sysfs.c: the PortCounters attributes, and the PortCountersExtended ones
// on devices that have them), in the order of their families on /metrics.
constexpr std::array<IbPortCounter, 21> kIbPortCounters = {{
    {"port_xmit_data", "port_xmit_data_64", "railkit_rdma_port_transmitted_bytes_total",
     "Bytes transmitted by the port (4 x port_xmit_data).", true},
    {"port_rcv_data", "port_rcv_data_64", "railkit_rdma_port_received_bytes_total",
     "Bytes received by the port (4 x port_rcv_data).", true},
    {"symbol_error", nullptr, "railkit_rdma_port_symbol_errors_total",
     "Minor physical errors on a lane of the link (symbol_error).", false},
    {"link_downed", nullptr, "railkit_rdma_port_link_downed_total",
     "Times the link went down after link error recovery failed (link_downed).", false},
    {"port_rcv_errors", nullptr, "railkit_rdma_port_receive_errors_total",
     "Received packets with errors (port_rcv_errors).", false},
    {"port_xmit_wait", nullptr, "railkit_rdma_port_transmit_wait_total",
     "Ticks the port had data to send but no credits (port_xmit_wait).", false},
    {"port_xmit_packets", "port_xmit_packets_64", "railkit_rdma_port_transmitted_packets_total",
     "Packets transmitted by the port on all virtual lanes (port_xmit_packets).", false},
    {"port_rcv_packets", "port_rcv_packets_64", "railkit_rdma_port_received_packets_total",
     "Packets received by the port on all virtual lanes, with errors (port_rcv_packets).", false},
    {"unicast_xmit_packets", "port_unicast_xmit_packets",
     "railkit_rdma_port_transmitted_unicast_packets_total",
     "Unicast packets transmitted (unicast_xmit_packets).", false},
    {"unicast_rcv_packets", "port_unicast_rcv_packets", "railkit_rdma_port_received_unicast_packets_total",
     "Unicast packets received (unicast_rcv_packets).", false},
    {"multicast_xmit_packets", "port_multicast_xmit_packets",
     "railkit_rdma_port_transmitted_multicast_packets_total",
     "Multicast packets transmitted (multicast_xmit_packets).", false},
    {"multicast_rcv_packets", "port_multicast_rcv_packets",
     "railkit_rdma_port_received_multicast_packets_total",
     "Multicast packets received (multicast_rcv_packets).", false},
    {"port_xmit_discards", nullptr, "railkit_rdma_port_transmit_discards_total",
     "Outbound packets discarded because the port was down or congested (port_xmit_discards).", false},
    {"link_error_recovery", nullptr, "railkit_rdma_port_link_error_recovery_total",
     "Times the link recovered from an error without going down; rising means a flapping link "
     "(link_error_recovery).",
     false},
    {"local_link_integrity_errors", nullptr, "railkit_rdma_port_local_link_integrity_errors_total",
     "Times local physical errors passed the LocalPhyErrors threshold (local_link_integrity_errors).", false},
    {"excessive_buffer_overrun_errors", nullptr, "railkit_rdma_port_excessive_buffer_overrun_errors_total",
     "Times OverrunErrors flow control periods in a row each had a receive buffer overrun "
     "(excessive_buffer_overrun_errors).",
     false},
    {"VL15_dropped", nullptr, "railkit_rdma_port_vl15_dropped_total",
     "Subnet management (VL15) packets dropped for lack of buffers (VL15_dropped).", false},
    {"port_xmit_constraint_errors", nullptr, "railkit_rdma_port_transmit_constraint_errors_total",
     "Outbound packets not sent for a partition key or raw packet filter (port_xmit_constraint_errors).",
     false},
    {"port_rcv_constraint_errors", nullptr, "railkit_rdma_port_receive_constraint_errors_total",
     "Inbound packets discarded for a partition key or raw packet filter (port_rcv_constraint_errors).",
     false},
    {"port_rcv_remote_physical_errors", nullptr, "railkit_rdma_port_receive_remote_physical_errors_total",
     "Received packets marked bad upstream with the EBP delimiter (port_rcv_remote_physical_errors).", false},
    {"port_rcv_switch_relay_errors", nullptr, "railkit_rdma_port_receive_switch_relay_errors_total",
     "Received packets a switch could not forward (port_rcv_switch_relay_errors).", false},
}};

// Counter files hold one decimal number; anything longer is not a counter.
constexpr size_t kMaxCounterBytes = 64;

// `lifespan` in hw_counters is how long (ms) the driver caches the values.
constexpr const char* kHwNotCounters[] = {"lifespan"};

class Reader {
 public:
  Reader(const FileRoot& root, PortCounters& out) : root_(root), out_(out) {}

  // The value of `dir/name`, or nullopt (counted) when it cannot be had.
  std::optional<uint64_t> read(const std::string& dir, std::string_view name) {
    auto text = root_.readText(joinPath(dir, name), kMaxCounterBytes + 1);
    std::optional<uint64_t> value;
    if (text && text->size() <= kMaxCounterBytes) value = parseCounterValue(*text);
    if (!value) ++out_.read_errors;
    return value;
  }

 private:
  const FileRoot& root_;
  PortCounters& out_;
};

bool isSetting(const std::string& name) {
  for (const char* s : kHwNotCounters)
    if (name == s) return true;
  return false;
}

// The names `dir` lists; none when it is absent or unreadable.
std::vector<std::string> listed(const FileRoot& root, const std::string& dir) {
  auto names = root.listDir(dir);
  return names ? *names : std::vector<std::string>{};
}

bool contains(const std::vector<std::string>& names, const char* name) {
  return name && std::find(names.begin(), names.end(), name) != names.end();
}

// counters/ and counters_ext/: each counter from the 64-bit copy when the
// kernel keeps one in counters_ext/, else from counters/ when listed there.
void readIbCounters(const std::string& port_dir, const FileRoot& root, PortCounters& out) {
  Reader reader(root, out);
  std::string counters = joinPath(port_dir, "counters");
  std::string ext = joinPath(port_dir, "counters_ext");
  auto in_counters = listed(root, counters);
  auto in_ext = listed(root, ext);
  for (const auto& c : kIbPortCounters) {
    std::optional<uint64_t> value;
    if (contains(in_ext, c.ext_file))
      value = reader.read(ext, c.ext_file);
    else if (contains(in_counters, c.file))
      value = reader.read(counters, c.file);
    if (value) out.ib[c.file] = *value;
  }
}

}  // namespace

std::span<const IbPortCounter> ibPortCounters() {
  return kIbPortCounters;
}

std::optional<uint64_t> parseCounterValue(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) return std::nullopt;
  for (char c : t)
    if (c < '0' || c > '9') return std::nullopt;
  return parseUint(t);
}

std::optional<uint64_t> parseStateNumber(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return parseCounterValue(text.substr(0, colon));
}

PortCounters readPortCounters(const FileRoot& root, const std::string& device, int port) {
  PortCounters out;
  std::string port_dir =
      joinPath(joinPath(joinPath(sys::paths::kClassInfiniband, device), "ports"), std::to_string(port));
  readIbCounters(port_dir, root, out);
  if (auto state = root.readLine(joinPath(port_dir, "state"))) out.state = parseStateNumber(*state);
  if (auto phys = root.readLine(joinPath(port_dir, "phys_state"))) out.phys_state = parseStateNumber(*phys);
  Reader reader(root, out);
  std::string hw_dir = joinPath(port_dir, "hw_counters");
  for (const auto& name : listed(root, hw_dir)) {
    if (isSetting(name)) continue;
    if (auto value = reader.read(hw_dir, name)) out.hw[name] = *value;
  }
  return out;
}

}  // namespace railkit::exporter
