// railkit render exporter (see exporter.h). The pod asks for the least it
// needs: it reads the host's /sys through a read-only hostPath (every
// counter file is world-readable), runs as nobody with no capabilities and a
// read-only root filesystem, and stays off the host network: Prometheus
// scrapes the pod IP through the headless Service. With `pods` (exporter
// --pods) it must enter other pods' network namespaces: that, and nothing
// else, adds root, CAP_SYS_ADMIN, CAP_SYS_PTRACE and the host's /proc.
#include "k8s/render/exporter.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/version.h"
#include "k8s/render/emit.h"
#include "k8s/render/values.h"

namespace railkit::k8s::render {
namespace {

using nlohmann::json;

json labels(const ExporterDeployment& d) {
  return {{"app.kubernetes.io/name", d.name}, {"app.kubernetes.io/part-of", "railkit"}};
}

json metadata(const ExporterDeployment& d) {
  return {{"name", d.name}, {"namespace", d.ns}, {"labels", labels(d)}};
}

// nobody and no capabilities; --pods: root with the two it needs (setns into
// another network namespace; reading the ns/net link of another user's
// process). Kubernetes gives added capabilities to root only.
json securityContext(const ExporterDeployment& d) {
  json caps = {{"drop", {"ALL"}}};
  if (d.pods) caps["add"] = {"SYS_ADMIN", "SYS_PTRACE"};
  return {{"runAsNonRoot", !d.pods},
          {"runAsUser", d.pods ? 0 : 65534},
          {"allowPrivilegeEscalation", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", caps}};
}

json daemonSet(const ExporterDeployment& d) {
  json args = {"exporter",
               "--root",
               "/host",
               "--listen",
               fmt::format("0.0.0.0:{}", d.port),
               "--interval",
               std::to_string(d.interval_s)};
  json mounts = {{{"name", "sys"}, {"mountPath", "/host/sys"}, {"readOnly", true}}};
  json volumes = {{{"name", "sys"}, {"hostPath", {{"path", "/sys"}, {"type", "Directory"}}}}};
  if (d.pods) {
    // The node's processes, so their network namespaces (--root /host).
    args.push_back("--pods");
    mounts.push_back({{"name", "proc"}, {"mountPath", "/host/proc"}, {"readOnly", true}});
    volumes.push_back({{"name", "proc"}, {"hostPath", {{"path", "/proc"}, {"type", "Directory"}}}});
  }
  json probe = {{"httpGet", {{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 30}};
  json container = {
      {"name", "exporter"},
      {"image", d.image},
      {"command", {"/usr/local/bin/railkit"}},
      {"args", args},
      {"ports", {{{"name", "metrics"}, {"containerPort", d.port}, {"protocol", "TCP"}}}},
      {"livenessProbe", probe},
      {"readinessProbe", probe},
      {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "32Mi"}}}, {"limits", {{"memory", "128Mi"}}}}},
      {"securityContext", securityContext(d)},
      {"volumeMounts", mounts},
  };
  json pod_spec = {
      {"containers", {container}},
      {"volumes", volumes},
      // GPU nodes are often tainted so only GPU work lands there: the exporter must too.
      {"tolerations",
       {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
        {{"key", "rdma"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}}},
      {"automountServiceAccountToken", false},
      {"priorityClassName", "system-node-critical"},
  };
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", metadata(d)},
          {"spec",
           {{"selector", {{"matchLabels", labels(d)}}},
            {"updateStrategy", {{"type", "RollingUpdate"}}},
            {"template", {{"metadata", {{"labels", labels(d)}}}, {"spec", pod_spec}}}}}};
}

json service(const ExporterDeployment& d) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", metadata(d)},
          {"spec",
           {{"clusterIP", "None"},
            {"selector", labels(d)},
            {"ports", {{{"name", "metrics"}, {"port", d.port}, {"targetPort", "metrics"}}}}}}};
}

json serviceMonitor(const ExporterDeployment& d) {
  return {{"apiVersion", "monitoring.coreos.com/v1"},
          {"kind", "ServiceMonitor"},
          {"metadata", metadata(d)},
          {"spec",
           {{"selector", {{"matchLabels", labels(d)}}},
            {"endpoints",
             {{{"port", "metrics"}, {"interval", fmt::format("{}s", std::max(d.interval_s, 15) * 2)}}}}}}};
}

// A PromQL string's body: backslash, quote and line breaks escaped. The
// name is a DNS label already (renderExporter); this keeps the rule's
// selector what it says whatever reaches it.
std::string promqlString(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

json alert(const std::string& name, const std::string& expr, const std::string& for_,
           const std::string& severity, const std::string& summary) {
  return {{"alert", name},
          {"expr", expr},
          {"for", for_},
          {"labels", {{"severity", severity}}},
          {"annotations", {{"summary", summary}}}};
}

// The alerts (docs/exporter.md lists them with their thresholds).
json ruleGroups(const ExporterDeployment& d) {
  json rules = json::array({
      alert("RailkitRdmaPortDown", "railkit_rdma_port_up == 0", "5m", "critical",
            "RDMA port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} is not ACTIVE"),
      // Below the fastest port of the same node: a link that trained at a
      // lower speed (a bad cable or transceiver) on an otherwise uniform node.
      alert(
          "RailkitRdmaPortRateBelowMax",
          "railkit_rdma_port_rate_bytes_per_second < ignoring(device, port) group_left "
          "max without(device, port) (railkit_rdma_port_rate_bytes_per_second)",
          "15m", "warning",
          "RDMA port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} runs below the node's "
          "fastest port"),
      alert("RailkitRdmaSymbolErrorsIncreasing", "increase(railkit_rdma_port_symbol_errors_total[10m]) > 0",
            "0m", "warning",
            "Symbol errors on {{ $labels.device }}/{{ $labels.port }} ({{ $labels.instance }}): a bad cable "
            "or optic"),
      alert("RailkitRdmaLinkDownedIncreasing", "increase(railkit_rdma_port_link_downed_total[10m]) > 0", "0m",
            "warning",
            "Link on {{ $labels.device }}/{{ $labels.port }} ({{ $labels.instance }}) went down and up"),
      alert("RailkitRdmaLinkErrorRecoveryIncreasing",
            "increase(railkit_rdma_port_link_error_recovery_total[10m]) > 0", "0m", "warning",
            "Link on {{ $labels.device }}/{{ $labels.port }} ({{ $labels.instance }}) is recovering from "
            "errors: a flapping link"),
      // A lossless fabric (IB credits, RoCE with PFC) discards only when a
      // packet outlives its queue lifetime or the link is down; discards in
      // every 5m window for 10 minutes are congestion that does not clear
      // (a stuck receiver, a credit loop), not one link flap.
      alert("RailkitRdmaTransmitDiscards", "rate(railkit_rdma_port_transmit_discards_total[5m]) > 0", "10m",
            "warning",
            "{{ $labels.device }}/{{ $labels.port }} ({{ $labels.instance }}) has discarded outbound packets "
            "for 10 minutes: congestion that does not clear"),
      alert("RailkitRoceCongestionStorm",
            "rate(railkit_rdma_hw_events_total{counter=~\"np_cnp_sent|rp_cnp_handled|np_ecn_marked_roce_"
            "packets\"}[5m]) > 100000",
            "10m", "warning",
            "{{ $labels.counter }} on {{ $labels.device }}/{{ $labels.port }} ({{ $labels.instance }}) above "
            "100k/s for "
            "10 minutes: sustained congestion"),
      alert("RailkitDoctorError", "railkit_doctor_findings{severity=\"error\"} > 0", "15m", "warning",
            "railkit doctor reports errors on {{ $labels.instance }} (railkit_doctor_finding lists them)"),
      alert("RailkitExporterDown", fmt::format("up{{job=\"{}\"}} == 0", promqlString(d.name)), "5m",
            "warning", "railkit exporter on {{ $labels.instance }} cannot be scraped"),
  });
  return json::array({{{"name", "railkit.rdma"}, {"rules", rules}}});
}

json prometheusRule(const ExporterDeployment& d) {
  return {{"apiVersion", "monitoring.coreos.com/v1"},
          {"kind", "PrometheusRule"},
          {"metadata", metadata(d)},
          {"spec", {{"groups", ruleGroups(d)}}}};
}

}  // namespace

std::string defaultRailkitImage() {
  return std::string("railkit:") + kRailkitVersion;
}

Result<std::vector<RenderedObject>> renderExporter(const ExporterDeployment& d) {
  if (d.image.empty())
    return makeError(ErrorCode::kUsage, "render exporter: --image is empty (expected railkit's image)");
  // The name goes into file names under --output, object names, labels and
  // the alert's PromQL; the image and namespace into YAML.
  if (auto status = checkValue("render exporter: --image", d.image, ValueShape::kImageReference); !status)
    return tl::unexpected(status.error());
  if (auto status = checkValue("render exporter: --name", d.name, ValueShape::kDnsLabel); !status)
    return tl::unexpected(status.error());
  if (auto status = checkValue("render exporter: --namespace", d.ns, ValueShape::kDnsLabel); !status)
    return tl::unexpected(status.error());
  if (d.port < 1 || d.port > 65535)
    return makeError(ErrorCode::kUsage, "render exporter: --port must be 1-65535");
  if (d.interval_s < 1)
    return makeError(ErrorCode::kUsage, "render exporter: --interval must be at least 1 second");
  return std::vector<RenderedObject>{
      {"00-daemonset-" + d.name + ".yaml",
       d.pods
           ? "railkit exporter --pods on every node: host /sys and /proc read-only, root with SYS_ADMIN and "
             "SYS_PTRACE only (to enter pods' network namespaces), pod network"
           : "railkit exporter on every node: host /sys read-only, nobody, no capabilities, pod network",
       daemonSet(d)},
      {"01-service-" + d.name + ".yaml", "Headless: Prometheus scrapes every exporter pod", service(d)},
      {"02-servicemonitor-" + d.name + ".yaml", "Prometheus Operator: scrape the Service's metrics port",
       serviceMonitor(d)},
      {"03-prometheusrule-" + d.name + ".yaml",
       "Alerts: ports, errors, congestion, doctor, the exporter itself", prometheusRule(d)},
  };
}

std::string exporterRuleFile(const ExporterDeployment& d) {
  return emitYaml(json{{"groups", ruleGroups(d)}});
}

}  // namespace railkit::k8s::render
