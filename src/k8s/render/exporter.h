#pragma once
// railkit render exporter: what runs `railkit exporter` on every GPU node and
// wires it into the Prometheus Operator (docs/exporter.md, "Deploying").

#include <string>
#include <vector>

#include "k8s/render/render.h"

namespace railkit::k8s::render {

// railkit:VERSION, the name `docker build -t` and `ctr image import
// --base-name railkit` give the image of this version.
std::string defaultRailkitImage();

struct ExporterDeployment {
  std::string ns = "monitoring";
  std::string name = "railkit-exporter";
  // railkit's OCI image (docs/install.md: `make image`, pushed where the
  // cluster pulls from), which runs /usr/local/bin/railkit.
  std::string image = defaultRailkitImage();
  int port = 9877;
  int interval_s = 15;  // the exporter's --interval
  // exporter --pods: per-pod RDMA counters. Costs privilege, so only on
  // request: root with CAP_SYS_ADMIN (setns) and CAP_SYS_PTRACE (opening
  // other users' /proc/PID/ns/net), and the host's /proc read-only.
  bool pods = false;
};

// DaemonSet, headless Service, ServiceMonitor and PrometheusRule.
Result<std::vector<RenderedObject>> renderExporter(const ExporterDeployment& deployment);

// The PrometheusRule's alerting rules as a Prometheus rule file (YAML of
// `spec`), for promtool and for clusters without the operator.
std::string exporterRuleFile(const ExporterDeployment& deployment);

}  // namespace railkit::k8s::render
