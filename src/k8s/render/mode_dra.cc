// dra through google/dranet: one claim per pod holding one NIC request per
// rail, each pinned to its host interface and renamed dranet<rail> in the
// pod. With draGpus the same claim holds the GPUs, one request each, and
// GPU i is tied to NIC i by a pcieRoot constraint of its own: a whole 8-GPU
// box never sits under one PCIe root, so one constraint over all the
// requests (as in dranet's 2-GPU example) could never be met there.
#include <algorithm>

#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kPcieRoot = "resource.kubernetes.io/pcieRoot";

json exactlyOne(const std::string& device_class, const std::string& cel) {
  json exactly = {{"deviceClassName", device_class}, {"allocationMode", "ExactCount"}, {"count", 1}};
  if (!cel.empty()) exactly["selectors"] = {{{"cel", {{"expression", cel}}}}};
  return exactly;
}

}  // namespace

Result<Objects> renderDraMode(const Profile& profile, PodDecoration& decoration) {
  Objects objects;
  const std::string nic_class = profile.name + "-rdma-nic";
  objects.push_back(
      {"deviceclass.yaml",
       "DeviceClass: RDMA-capable NICs published by the dra.net driver.",
       {{"apiVersion", "resource.k8s.io/v1"},
        {"kind", "DeviceClass"},
        {"metadata", {{"name", nic_class}}},
        {"spec",
         {{"selectors",
           {{{"cel",
              {{"expression",
                "device.driver == \"dra.net\" && device.attributes[\"dra.net\"].rdma == true"}}}}}}}}}});
  json requests = json::array();
  json config = json::array();
  const size_t nics = profile.data_interfaces.size();
  for (size_t i = 0; i < nics; ++i) {
    const std::string request = "nic" + std::to_string(i);
    const std::string pod_name = "dranet" + std::to_string(i);
    requests.push_back({{"name", request},
                        {"exactly", exactlyOne(nic_class, "device.attributes[\"dra.net\"].ifName == \"" +
                                                              profile.data_interfaces[i] + "\"")}});
    config.push_back(
        {{"requests", {request}},
         {"opaque", {{"driver", "dra.net"}, {"parameters", {{"interface", {{"name", pod_name}}}}}}}});
    decoration.pod_data_interfaces.push_back(pod_name);
  }
  json devices = {{"requests", requests}, {"config", config}};
  std::string comment =
      "ResourceClaimTemplate: one NIC per rail, rail i's host interface named dranet<i> in the pod.";
  if (profile.dra_gpus) {
    const size_t gpus = static_cast<size_t>(profile.gpus_per_node);
    for (size_t g = 0; g < gpus; ++g)
      devices["requests"].push_back(
          {{"name", "gpu" + std::to_string(g)}, {"exactly", exactlyOne("gpu.nvidia.com", "")}});
    // GPU i with NIC i, one constraint per pair. Where one side is longer
    // its extra devices stay unconstrained: tying several GPUs to one NIC
    // would ask for several GPUs under one root, which boxes rarely have.
    const size_t pairs = std::min(gpus, nics);
    json constraints = json::array();
    for (size_t p = 0; p < pairs; ++p)
      constraints.push_back({{"requests", {"gpu" + std::to_string(p), "nic" + std::to_string(p)}},
                             {"matchAttribute", kPcieRoot}});
    devices["constraints"] = constraints;
    decoration.gpus_from_dra = true;
    comment += " GPUs come through DRA too, one request each, and each GPU-NIC pair shares a PCIe root (" +
               std::string(kPcieRoot) + "), GPU i with NIC i; the worker requests no nvidia.com/gpu.";
  } else {
    comment +=
        " GPUs come from the device plugin, so NIC/GPU PCIe alignment is not guaranteed (set draGpus).";
  }
  objects.push_back({"claim-template.yaml",
                     comment,
                     {{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceClaimTemplate"},
                      {"metadata", metadata(profile.name + "-rails", profile.ns)},
                      {"spec", {{"spec", {{"devices", devices}}}}}}});
  decoration.pod_claims.push_back(
      {{"name", "rails"}, {"resourceClaimTemplateName", profile.name + "-rails"}});
  decoration.container_claims.push_back({{"name", "rails"}});
  socketEnv(profile, decoration, false);
  return objects;
}

}  // namespace railkit::k8s::render
