#include "exporter/metrics.h"

#include <array>
#include <limits>
#include <optional>

#include "exporter/exposition.h"
#include "exporter/families.h"
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

// The number in a port's state file ("4: ACTIVE"), for ports that have one.
void stateFamily(Exposition& out, const NodeReading& reading, const MetricFamily& family,
                 std::optional<uint64_t> PortCounters::*field) {
  out.family(family);
  for (const auto& p : reading.ports)
    if (const auto& value = p.counters.*field) out.sample(portLabels(p.device, p.port), formatValue(*value));
}

void portFamilies(Exposition& out, const NodeReading& reading) {
  const auto& devices = reading.inventory.rdma_devices;
  out.family(kRdmaPortInfo);
  for (const auto& d : devices)
    for (const auto& p : d.ports)
      out.sample({{"device", d.name},
                  {"port", std::to_string(p.port)},
                  {"link_layer", p.link_layer},
                  {"netdev", p.netdev},
                  {"fw_ver", d.fw_ver}},
                 "1");
  out.family(kRdmaPortUp);
  for (const auto& d : devices)
    for (const auto& p : d.ports) out.sample(portLabels(d.name, p.port), model::portActive(p) ? "1" : "0");
  stateFamily(out, reading, kRdmaPortState, &PortCounters::state);
  stateFamily(out, reading, kRdmaPortPhysicalState, &PortCounters::phys_state);
  out.family(kRdmaPortRate);
  for (const auto& d : devices)
    for (const auto& p : d.ports)
      if (p.rate_gbps) out.sample(portLabels(d.name, p.port), formatValue(*p.rate_gbps * 1e9 / 8));
}

// One family per IB port counter (kIbPortCounters), then the driver's.
void counterFamilies(Exposition& out, const NodeReading& reading) {
  for (const auto& c : ibPortCounters()) {
    out.family(counterFamily(c));
    for (const auto& p : reading.ports) {
      auto it = p.counters.ib.find(c.file);
      if (it == p.counters.ib.end()) continue;
      out.sample(portLabels(p.device, p.port), c.words ? wordsAsBytes(it->second) : formatValue(it->second));
    }
  }
  out.family(kRdmaHwEvents);
  for (const auto& p : reading.ports)
    for (const auto& [name, value] : p.counters.hw) {
      Labels labels = portLabels(p.device, p.port);
      labels.emplace_back("counter", name);
      out.sample(labels, formatValue(value));
    }
}

void pfcPauseFamily(Exposition& out, const NodeReading& reading) {
  out.family(kNetdevPfcPause);
  for (const auto& [netdev, counters] : reading.inventory.pfc_pause)
    for (const auto& c : counters)
      out.sample({{"netdev", netdev},
                  {"priority", std::to_string(c.priority)},
                  {"direction", c.received ? "rx" : "tx"}},
                 formatValue(c.frames));
}

void doctorFamilies(Exposition& out, const std::vector<Finding>& findings) {
  out.family(kDoctorFinding);
  for (const auto& f : findings)
    out.sample({{"id", f.id}, {"severity", severityName(f.severity)}, {"subject", f.subject}}, "1");
  out.family(kDoctorFindings);
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
  out.family(kGpuNicDistance);
  for (const auto& g : reading.inventory.topology.gpu_nic)
    out.sample({{"gpu", g.gpu}, {"device", g.nic}}, formatValue(static_cast<uint64_t>(g.distance)));
  if (reading.pods) renderPods(out, *reading.pods, stats.pod_netns_errors_total);
  out.family(kExporterScrapeDuration);
  out.sample({}, formatValue(stats.scrape_duration_seconds));
  out.family(kExporterReadErrors);
  out.sample({}, formatValue(stats.read_errors_total));
  return out.text();
}

}  // namespace railkit::exporter
