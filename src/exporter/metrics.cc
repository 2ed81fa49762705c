#include "exporter/metrics.h"

#include <array>
#include <limits>
#include <optional>

#include "exporter/exposition.h"
#include "model/collect.h"

namespace railkit::exporter {
namespace {

Labels portLabels(const std::string& device, int port) {
  return {{"device", device}, {"port", std::to_string(port)}};
}

// IB data counters count 4-octet words; bytes are 4x. A word count past
// 2^62 would overflow 64 bits, so such a value is written as a double.
std::string wordsAsBytes(uint64_t words) {
  if (words <= std::numeric_limits<uint64_t>::max() / 4) return formatValue(words * 4);
  return formatValue(static_cast<double>(words) * 4.0);
}

bool portUp(const model::RdmaPort& port) {
  return port.state == "ACTIVE" && (port.phys_state.empty() || port.phys_state == "LinkUp");
}

// One family over every port that has the counter.
void counterFamily(Exposition& out, const NodeReading& reading, const char* name, const char* help,
                   std::optional<uint64_t> PortCounters::*field, bool words) {
  out.family(name, "counter", help);
  for (const auto& p : reading.ports) {
    const auto& value = p.counters.*field;
    if (value) out.sample(portLabels(p.device, p.port), words ? wordsAsBytes(*value) : formatValue(*value));
  }
}

void portFamilies(Exposition& out, const NodeReading& reading) {
  const auto& devices = reading.inventory.rdma_devices;
  out.family("railkit_rdma_port_info", "gauge",
             "RDMA port facts: link layer, netdev and firmware; always 1.");
  for (const auto& d : devices)
    for (const auto& p : d.ports)
      out.sample({{"device", d.name},
                  {"port", std::to_string(p.port)},
                  {"link_layer", p.link_layer},
                  {"netdev", p.netdev},
                  {"fw_ver", d.fw_ver}},
                 "1");
  out.family("railkit_rdma_port_up", "gauge",
             "1 when the port is ACTIVE and its physical link LinkUp, else 0.");
  for (const auto& d : devices)
    for (const auto& p : d.ports) out.sample(portLabels(d.name, p.port), portUp(p) ? "1" : "0");
  out.family("railkit_rdma_port_rate_bytes_per_second", "gauge",
             "Link rate of the port in bytes per second.");
  for (const auto& d : devices)
    for (const auto& p : d.ports)
      if (p.rate_gbps) out.sample(portLabels(d.name, p.port), formatValue(*p.rate_gbps * 1e9 / 8));
}

void counterFamilies(Exposition& out, const NodeReading& reading) {
  counterFamily(out, reading, "railkit_rdma_port_transmitted_bytes_total",
                "Bytes transmitted by the port (4 x port_xmit_data).", &PortCounters::transmitted_words,
                true);
  counterFamily(out, reading, "railkit_rdma_port_received_bytes_total",
                "Bytes received by the port (4 x port_rcv_data).", &PortCounters::received_words, true);
  counterFamily(out, reading, "railkit_rdma_port_symbol_errors_total",
                "Physical symbol errors (symbol_error).", &PortCounters::symbol_errors, false);
  counterFamily(out, reading, "railkit_rdma_port_link_downed_total",
                "Times the link went down after link error recovery failed (link_downed).",
                &PortCounters::link_downed, false);
  counterFamily(out, reading, "railkit_rdma_port_receive_errors_total",
                "Received packets with errors (port_rcv_errors).", &PortCounters::receive_errors, false);
  counterFamily(out, reading, "railkit_rdma_port_transmit_wait_total",
                "Ticks the port had data to send but no credits (port_xmit_wait).",
                &PortCounters::transmit_wait, false);
  out.family("railkit_rdma_hw_counter_total", "counter",
             "Driver counters of the port (hw_counters/: CNPs, ECN marks, retransmission causes).");
  for (const auto& p : reading.ports)
    for (const auto& [name, value] : p.counters.hw) {
      Labels labels = portLabels(p.device, p.port);
      labels.emplace_back("counter", name);
      out.sample(labels, formatValue(value));
    }
}

void pfcPauseFamily(Exposition& out, const NodeReading& reading) {
  out.family("railkit_netdev_pfc_pause_frames_total", "counter",
             "PFC pause frames per priority of a RoCE netdev (ethtool statistics: mlx5 rx/tx_prioN_pause).");
  for (const auto& [netdev, counters] : reading.inventory.pfc_pause)
    for (const auto& c : counters)
      out.sample({{"netdev", netdev},
                  {"priority", std::to_string(c.priority)},
                  {"direction", c.received ? "rx" : "tx"}},
                 formatValue(c.frames));
}

void doctorFamilies(Exposition& out, const std::vector<Finding>& findings) {
  out.family("railkit_doctor_finding", "gauge", "One series per current doctor finding; always 1.");
  for (const auto& f : findings)
    out.sample({{"id", f.id}, {"severity", severityName(f.severity)}, {"subject", f.subject}}, "1");
  out.family("railkit_doctor_findings", "gauge", "Current doctor findings by severity.");
  constexpr std::array<Severity, 3> kSeverities = {Severity::kError, Severity::kWarning, Severity::kInfo};
  for (Severity s : kSeverities) {
    uint64_t count = 0;
    for (const auto& f : findings) count += f.severity == s;
    out.sample({{"severity", severityName(s)}}, formatValue(count));
  }
}

}  // namespace

Result<NodeReading> readNode(const FileRoot& root) {
  auto inventory = model::collectInventory(root, model::CollectOptions{});
  if (!inventory) return tl::unexpected(inventory.error());
  NodeReading reading;
  reading.inventory = std::move(*inventory);
  for (const auto& d : reading.inventory.rdma_devices)
    for (const auto& p : d.ports) {
      PortReading port{d.name, p.port, readPortCounters(root, d.name, p.port)};
      reading.read_errors += port.counters.read_errors;
      reading.ports.push_back(std::move(port));
    }
  return reading;
}

std::string renderMetrics(const NodeReading& reading, const std::vector<Finding>& findings,
                          const ExporterStats& stats) {
  Exposition out;
  portFamilies(out, reading);
  counterFamilies(out, reading);
  pfcPauseFamily(out, reading);
  doctorFamilies(out, findings);
  out.family("railkit_gpu_nic_distance", "gauge",
             "PCIe distance between a GPU and an RDMA NIC: 0 PIX, 1 PXB, 2 PHB, 3 NODE, 4 SYS.");
  for (const auto& g : reading.inventory.topology.gpu_nic)
    out.sample({{"gpu", g.gpu}, {"device", g.nic}}, formatValue(static_cast<uint64_t>(g.distance)));
  if (reading.pods) renderPods(out, *reading.pods, stats.pod_netns_errors_total);
  out.family("railkit_exporter_scrape_duration_seconds", "gauge",
             "Seconds the last read of sysfs and rendering of these metrics took.");
  out.sample({}, formatValue(stats.scrape_duration_seconds));
  out.family("railkit_exporter_read_errors_total", "counter",
             "Counter files that were missing, unreadable or not a number, since the exporter started.");
  out.sample({}, formatValue(stats.read_errors_total));
  return out.text();
}

}  // namespace railkit::exporter
