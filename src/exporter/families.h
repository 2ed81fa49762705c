#pragma once
// Every metric family /metrics serves, declared once. The # HELP and # TYPE
// lines, the label names its samples carry (exporter_metrics_test checks each
// sample against them) and its row in docs/exporter.md's metrics table
// (generated: `make docs`) all come from its MetricFamily. The IB port
// counters are families too: one per row of kIbPortCounters (counters.h).

#include <string>
#include <string_view>
#include <vector>

#include "exporter/counters.h"

namespace railkit::exporter {

struct MetricFamily {
  std::string_view name;
  std::string_view type;            // "gauge" or "counter"
  std::string_view labels;          // label names in sample order, comma-separated; "" for none
  std::string_view help;            // the # HELP text
  std::string_view docs_note = {};  // docs/exporter.md adds this to the help: where values come from
};

inline constexpr MetricFamily kRdmaPortInfo{"railkit_rdma_port_info", "gauge",
                                            "device,port,link_layer,netdev,fw_ver",
                                            "RDMA port facts: link layer, netdev and firmware; always 1."};
inline constexpr MetricFamily kRdmaPortUp{"railkit_rdma_port_up", "gauge", "device,port",
                                          "1 when the port is ACTIVE and its physical link LinkUp, else 0.",
                                          "From the port's `state` and `phys_state` files."};
inline constexpr MetricFamily kRdmaPortState{
    "railkit_rdma_port_state", "gauge", "device,port",
    "Port state as the kernel numbers it: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.",
    "The number in the port's `state` file."};
inline constexpr MetricFamily kRdmaPortPhysicalState{
    "railkit_rdma_port_physical_state", "gauge", "device,port",
    "Physical link state as the kernel numbers it: 1 Sleep, 2 Polling, 3 Disabled, "
    "4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.",
    "The number in the port's `phys_state` file."};
inline constexpr MetricFamily kRdmaPortRate{"railkit_rdma_port_rate_bytes_per_second", "gauge", "device,port",
                                            "Link rate of the port in bytes per second.",
                                            "The port's `rate` (Gb/s × 10⁹ / 8)."};
inline constexpr MetricFamily kRdmaHwEvents{
    "railkit_rdma_hw_events_total", "counter", "device,port,counter",
    "Driver counters of the port (hw_counters/: CNPs, ECN marks, retransmission causes), one series per "
    "file.",
    "The `counter` label is the file's name; `lifespan`, a setting, is left out."};
inline constexpr MetricFamily kNetdevPfcPause{
    "railkit_netdev_pfc_pause_frames_total", "counter", "netdev,priority,direction",
    "PFC pause frames per priority of a RoCE netdev (ethtool statistics: mlx5 rx/tx_prioN_pause).",
    "`direction` is `rx` (received) or `tx` (sent); bnxt's `rx_pfc_ena_frames_pri3` is read too. Read live "
    "through SIOCETHTOOL, or from the snapshot's `live.json` `pfc_pause` with `--root`."};
inline constexpr MetricFamily kDoctorFinding{"railkit_doctor_finding", "gauge", "id,severity,subject",
                                             "One series per current doctor finding; always 1.",
                                             "`railkit explain ID` says what a finding means."};
inline constexpr MetricFamily kDoctorFindings{"railkit_doctor_findings", "gauge", "severity",
                                              "Current doctor findings by severity.",
                                              "error, warning and info, 0 included."};
inline constexpr MetricFamily kGpuNicDistance{
    "railkit_gpu_nic_distance", "gauge", "gpu,device",
    "PCIe distance between a GPU and an RDMA NIC: 0 PIX, 1 PXB, 2 PHB, 3 NODE, 4 SYS.",
    "As `inspect` shows it."};
inline constexpr MetricFamily kPodRdmaDevices{
    "railkit_pod_rdma_devices", "gauge", "netns,pod_uid",
    "RDMA devices a pod's network namespace holds (RDMA netlink, ib_core netns_mode exclusive).",
    "Served with `--pods`; only namespaces holding one."};
inline constexpr MetricFamily kPodRdmaHwEvents{
    "railkit_pod_rdma_hw_events_total", "counter", "netns,pod_uid,device,port,counter",
    "Port counters of an RDMA device in a pod's network namespace (what `rdma statistic show` prints there).",
    "Served with `--pods`."};
inline constexpr MetricFamily kExporterPodsSupported{
    "railkit_exporter_pods_supported", "gauge", "",
    "1 when --pods can read per-pod RDMA counters here; 0 when the kernel has no RDMA netlink or ib_core "
    "shares devices across namespaces.",
    "Served with `--pods`."};
inline constexpr MetricFamily kExporterPodNetworkNamespaces{
    "railkit_exporter_pod_network_namespaces", "gauge", "",
    "Network namespaces (other than the host's and the exporter's) looked into by the last reading.",
    "Served with `--pods`."};
inline constexpr MetricFamily kExporterPodNetnsErrors{
    "railkit_exporter_pod_netns_errors_total", "counter", "",
    "Network namespaces that could not be entered or queried, since the exporter started.",
    "Served with `--pods`: namespaces not entered, not answered, or left for lack of time."};
inline constexpr MetricFamily kExporterScrapeDuration{
    "railkit_exporter_scrape_duration_seconds", "gauge", "",
    "Seconds the last read of sysfs and rendering of these metrics took.",
    "The background reading: sysfs, the namespaces of `--pods`, doctor when due, rendering."};
inline constexpr MetricFamily kExporterReadErrors{
    "railkit_exporter_read_errors_total", "counter", "",
    "Counter files a port lists that were unreadable or not a number, since the exporter started."};

// The family of one IB port counter file.
MetricFamily counterFamily(const IbPortCounter& counter);

// Every family, in the order /metrics serves them.
std::vector<MetricFamily> metricFamilies();

}  // namespace railkit::exporter
