// The exposure modes: each adds the objects it needs and decorates workers.
#include "k8s/render/parts.h"

namespace railkit::k8s::render {
namespace {

std::string ipamJson(const Profile& profile) {
  return R"({"type": "whereabouts", "range": "192.168.100.0/24", "exclude": []})";
  (void)profile;
}

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : ",") + item;
  return out;
}

// Multus selection: one attachment per data interface, named net1..netN.
void attachNetworks(const Profile& profile, const std::string& network, PodDecoration& decoration) {
  std::string list;
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i)
    list += (list.empty() ? "" : ",") + network + "@net" + std::to_string(i + 1);
  decoration.annotations["k8s.v1.cni.cncf.io/networks"] = list;
  decoration.pod_data_interfaces.clear();
  for (size_t i = 0; i < profile.data_interfaces.size(); ++i)
    decoration.pod_data_interfaces.push_back("net" + std::to_string(i + 1));
}

RenderedObject nicClusterPolicy(const std::string& plugin, const json& config, const std::string& comment) {
  json spec;
  spec[plugin] = {{"image", plugin == "rdmaSharedDevicePlugin" ? "k8s-rdma-shared-dev-plugin" : "sriov-network-device-plugin"},
                  {"repository", "nvcr.io/nvidia/mellanox"},
                  {"version", "network-operator-v26.4.1"},
                  {"config", config.dump()}};
  return {"nicclusterpolicy.yaml", comment,
          {{"apiVersion", "mellanox.com/v1alpha1"}, {"kind", "NicClusterPolicy"},
           {"metadata", {{"name", "nic-cluster-policy"}}}, {"spec", spec}}};
}

void socketEnv(const Profile& profile, PodDecoration& decoration, bool ib_hca) {
  decoration.env.push_back(envVar("NCCL_SOCKET_IFNAME", profile.control_interface));
  if (ib_hca && !profile.hcas.empty()) decoration.env.push_back(envVar("NCCL_IB_HCA", "=" + joined(profile.hcas)));
  if (profile.fabric == "roce") decoration.env.push_back(envVar("NCCL_IB_GID_INDEX", "3"));
}

}  // namespace

Result<std::vector<RenderedObject>> renderMode(const Profile& profile, PodDecoration& decoration) {
  std::vector<RenderedObject> objects;
  const std::string& ns = profile.ns;
  const std::string network = profile.name + "-rdma";
  if (profile.mode == "rdma-shared" || profile.mode == "host-network") {
    json config = {{"configList",
                    {{{"resourceName", profile.resource_name},
                      {"rdmaHcaMax", 63},
                      {"selectors", {{"ifNames", profile.data_interfaces}}}}}}};
    objects.push_back(nicClusterPolicy("rdmaSharedDevicePlugin", config,
                                       "Shared RDMA device plugin: advertises rdma/" + profile.resource_name +
                                           " on nodes with the listed NICs."));
    decoration.limits["rdma/" + profile.resource_name] = 1;
    if (profile.mode == "host-network") {
      decoration.host_network = true;
      decoration.pod_data_interfaces = profile.data_interfaces;
      decoration.pod_comment =
          "WARNING: hostNetwork shares the node's network namespace: every host interface and port, no "
          "isolation between pods, one job per node. Use it only where a secondary network is impossible.";
      socketEnv(profile, decoration, true);
      return objects;
    }
    json spec = {{"networkNamespace", ns}, {"master", profile.data_interfaces.front()}, {"ipam", ipamJson(profile)}};
    std::string kind = profile.fabric == "infiniband" ? "IPoIBNetwork" : "MacvlanNetwork";
    if (kind == "MacvlanNetwork") {
      spec["mode"] = "bridge";
      spec["mtu"] = 9000;
    }
    objects.push_back({"network.yaml", kind + ": the secondary network the RDMA device is used through.",
                       {{"apiVersion", "mellanox.com/v1alpha1"}, {"kind", kind},
                        {"metadata", {{"name", network}}}, {"spec", spec}}});
    decoration.annotations["k8s.v1.cni.cncf.io/networks"] = network;
    decoration.pod_data_interfaces = {"net1"};
    socketEnv(profile, decoration, true);
  } else if (profile.mode == "sriov") {
    json policy = {{"resourceName", profile.resource_name},
                   {"nodeSelector", {{"feature.node.kubernetes.io/network-sriov.capable", "true"}}},
                   {"numVfs", 8},
                   {"priority", 90},
                   {"isRdma", true},
                   {"deviceType", "netdevice"},
                   {"linkType", profile.fabric == "infiniband" ? "IB" : "ETH"},
                   {"nicSelector", {{"vendor", "15b3"}, {"pfNames", profile.data_interfaces}}}};
    objects.push_back({"sriov-policy.yaml",
                       "SR-IOV VFs with RDMA; nodeSelector is required by the CRD. Use RDMA exclusive netns mode "
                       "(railkit render node-prep).",
                       {{"apiVersion", "sriovnetwork.openshift.io/v1"}, {"kind", "SriovNetworkNodePolicy"},
                        {"metadata", metadata(profile.name + "-vfs", "sriov-network-operator")}, {"spec", policy}}});
    std::string kind = profile.fabric == "infiniband" ? "SriovIBNetwork" : "SriovNetwork";
    json spec = {{"resourceName", profile.resource_name}, {"networkNamespace", ns}, {"ipam", ipamJson(profile)}};
    if (kind == "SriovNetwork") spec["metaPlugins"] = R"({"type": "rdma"})";
    objects.push_back({"sriov-network.yaml", kind + ": one VF attachment per pod network selection.",
                       {{"apiVersion", "sriovnetwork.openshift.io/v1"}, {"kind", kind},
                        {"metadata", metadata(network, "sriov-network-operator")}, {"spec", spec}}});
    decoration.limits["openshift.io/" + profile.resource_name] = static_cast<int>(profile.data_interfaces.size());
    attachNetworks(profile, network, decoration);
    socketEnv(profile, decoration, true);
  } else if (profile.mode == "host-device") {
    json config = {{"resourceList",
                    {{{"resourcePrefix", "nvidia.com"},
                      {"resourceName", profile.resource_name},
                      {"selectors", {{"vendors", {"15b3"}}, {"isRdma", true}}}}}}};
    objects.push_back(nicClusterPolicy("sriovDevicePlugin", config,
                                       "Host-device: whole RDMA NICs (PFs) handed to pods as nvidia.com/" +
                                           profile.resource_name + "."));
    objects.push_back({"network.yaml", "HostDeviceNetwork: moves the NIC into the pod.",
                       {{"apiVersion", "mellanox.com/v1alpha1"}, {"kind", "HostDeviceNetwork"},
                        {"metadata", {{"name", network}}},
                        {"spec", {{"networkNamespace", ns}, {"resourceName", profile.resource_name},
                                  {"ipam", ipamJson(profile)}}}}});
    decoration.limits["nvidia.com/" + profile.resource_name] = static_cast<int>(profile.data_interfaces.size());
    attachNetworks(profile, network, decoration);
    socketEnv(profile, decoration, true);
  } else if (profile.mode == "dra") {
    objects.push_back({"deviceclass.yaml", "DeviceClass: RDMA-capable NICs published by the dra.net driver.",
                       {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "DeviceClass"},
                        {"metadata", {{"name", profile.name + "-rdma-nic"}}},
                        {"spec", {{"selectors", {{{"cel", {{"expression",
                                    "device.driver == \"dra.net\" && device.attributes[\"dra.net\"].rdma == true"}}}}}}}}}});
    json requests = json::array();
    requests.push_back({{"name", "nic"},
                        {"exactly", {{"deviceClassName", profile.name + "-rdma-nic"}, {"allocationMode", "ExactCount"},
                                     {"count", 1}}}});
    json devices = {{"requests", requests},
                    {"config", {{{"requests", {"nic"}},
                                 {"opaque", {{"driver", "dra.net"},
                                             {"parameters", {{"interface", {{"name", "dranet0"}}}}}}}}}}};
    std::string comment = "ResourceClaimTemplate: one RDMA NIC per pod, named dranet0 inside the pod.";
    if (profile.dra_gpus) {
      devices["requests"].push_back({{"name", "gpu"},
                                     {"exactly", {{"deviceClassName", "gpu.nvidia.com"}, {"allocationMode", "ExactCount"},
                                                  {"count", profile.gpus_per_node}}}});
      devices["constraints"] = {{{"requests", {"nic", "gpu"}}, {"matchAttribute", "resource.kubernetes.io/pcieRoot"}}};
      comment += " GPUs come through DRA too, so NIC and GPUs are aligned on one PCIe root.";
    } else {
      comment += " GPUs come from the device plugin, so NIC/GPU PCIe alignment is not guaranteed.";
    }
    objects.push_back({"claim-template.yaml", comment,
                       {{"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceClaimTemplate"},
                        {"metadata", metadata(profile.name + "-nic", ns)}, {"spec", {{"spec", {{"devices", devices}}}}}}});
    decoration.pod_claims.push_back({{"name", "nic"}, {"resourceClaimTemplateName", profile.name + "-nic"}});
    decoration.container_claims.push_back({{"name", "nic"}});
    decoration.pod_data_interfaces = {"dranet0"};
    decoration.env.push_back(envVar("NCCL_SOCKET_IFNAME", profile.control_interface));
    decoration.env.push_back(envVar("NCCL_IB_HCA", profile.hcas.empty() ? "mlx5" : "=" + joined(profile.hcas)));
  } else if (profile.mode == "gke-tcpxo") {
    // GKE multi-network: eth0 is the pod network, eth1..eth8 the GPU NICs.
    json interfaces = json::array({{{"interfaceName", "eth0"}, {"network", "default"}}});
    std::string nics;
    for (size_t i = 0; i < profile.data_interfaces.size(); ++i) {
      std::string ifname = "eth" + std::to_string(i + 1);
      interfaces.push_back({{"interfaceName", ifname}, {"network", "vpc" + std::to_string(i + 1)}});
      nics += (nics.empty() ? "" : ",") + ifname;
      decoration.pod_data_interfaces.push_back(ifname);
    }
    decoration.annotations["networking.gke.io/default-interface"] = "eth0";
    decoration.annotations["networking.gke.io/interfaces"] = interfaces.dump();
    std::string devices;
    for (int gpu = 0; gpu < profile.gpus_per_node; ++gpu) devices += "- path: /dev/nvidia" + std::to_string(gpu) + "\n";
    devices += "- path: /dev/nvidiactl\n- path: /dev/nvidia-uvm\n- path: /dev/dmabuf_import_helper\n";
    decoration.annotations["devices.gke.io/container.tcpxo-daemon"] = devices;
    decoration.extra_volumes.push_back({{"name", "sys"}, {"hostPath", {{"path", "/sys"}}}});
    decoration.extra_volumes.push_back({{"name", "proc-sys"}, {"hostPath", {{"path", "/proc/sys"}}}});
    decoration.extra_volumes.push_back({{"name", "libraries"}, {"hostPath", {{"path", "/home/kubernetes/bin/nvidia"}}}});
    decoration.extra_volumes.push_back({{"name", "aperture-devices"}, {"hostPath", {{"path", "/dev/aperture_devices"}}}});
    decoration.extra_containers.push_back(
        {{"name", "tcpxo-daemon"},
         {"image", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"},
         {"command", {"/bin/sh", "-c",
                      "ulimit -l unlimited\n/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=" +
                          std::to_string(profile.data_interfaces.size()) + " --uid= --alsologtostderr\n"}},
         {"securityContext", {{"capabilities", {{"add", {"NET_ADMIN", "NET_BIND_SERVICE"}}}}}},
         {"volumeMounts", {{{"name", "libraries"}, {"mountPath", "/usr/local/nvidia"}},
                           {{"name", "sys"}, {"mountPath", "/hostsysfs"}},
                           {{"name", "proc-sys"}, {"mountPath", "/hostprocsysfs"}}}},
         {"env", {envVar("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")}}});
    decoration.extra_mounts.push_back({{"name", "libraries"}, {"mountPath", "/usr/local/nvidia"}});
    decoration.extra_mounts.push_back({{"name", "aperture-devices"}, {"mountPath", "/dev/aperture_devices"}});
    decoration.env.push_back(envVar("NCCL_SOCKET_IFNAME", "eth0"));
    decoration.env.push_back(envVar("NCCL_FASTRAK_CTRL_DEV", "eth0"));
    decoration.env.push_back(envVar("NCCL_FASTRAK_IFNAME", nics));
    decoration.env.push_back(envVar("NCCL_CROSS_NIC", "0"));
    decoration.env.push_back(envVar("NCCL_NET_GDR_LEVEL", "PIX"));
    decoration.env.push_back(envVar("NCCL_FASTRAK_USE_SNAP", "1"));
    decoration.env.push_back(envVar("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0"));
    decoration.env.push_back(envVar("NCCL_TUNER_PLUGIN", "libnccl-tuner.so"));
    decoration.env.push_back(envVar("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64"));
    decoration.pod_comment =
        "GPUDirect-TCPXO (not RDMA). Prerequisites, not rendered here: the GKE Network and GKENetworkParamSet "
        "objects vpc1..vpc8 and the NRI device injector DaemonSet. NCCL settings follow the node's "
        "nccl-env-profile script.";
  }
  return objects;
}

}  // namespace railkit::k8s::render
