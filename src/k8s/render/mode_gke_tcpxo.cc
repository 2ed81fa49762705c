// gke-tcpxo: GPUDirect-TCPXO on GKE A3 Mega without privilege or host
// network. The RxDM daemon runs as a native sidecar (so Job pods complete)
// with the GPUs injected by the NRI device injector; the main container
// sources the NCCL settings the node's installer wrote for its TCPXO
// version, then names the pod's own interfaces.
#include "k8s/render/modes.h"

namespace railkit::k8s::render {
namespace {

// v1.0.20: v1.0.21's entrypoint rejects the flags its own examples pass
// (--uid= --alsologtostderr) and RxDM exits (../shared/seeds/004).
constexpr const char* kRxdmImage = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20";
constexpr const char* kRxdmEntrypoint = "/fts/entrypoint_rxdm_container.sh";
constexpr const char* kNcclLibDir = "/usr/local/nvidia/lib64";

}  // namespace

Result<Objects> renderTcpxoMode(const Profile& profile, PodDecoration& decoration) {
  // GKE multi-network: eth0 is the pod network, eth1..ethN the GPU NICs.
  json interfaces = json::array({{{"interfaceName", "eth0"}, {"network", "default"}}});
  const size_t nics = profile.data_interfaces.size();
  for (size_t i = 0; i < nics; ++i) {
    std::string ifname = "eth" + std::to_string(i + 1);
    interfaces.push_back({{"interfaceName", ifname}, {"network", "vpc" + std::to_string(i + 1)}});
    decoration.pod_data_interfaces.push_back(ifname);
  }
  const std::string nic_list = joined(decoration.pod_data_interfaces);
  decoration.annotations["networking.gke.io/default-interface"] = "eth0";
  decoration.annotations["networking.gke.io/interfaces"] = interfaces.dump();
  std::string devices;
  for (int gpu = 0; gpu < profile.gpus_per_node; ++gpu)
    devices += "- path: /dev/nvidia" + std::to_string(gpu) + "\n";
  devices += "- path: /dev/nvidiactl\n- path: /dev/nvidia-uvm\n- path: /dev/dmabuf_import_helper\n";
  decoration.annotations["devices.gke.io/container.tcpxo-daemon"] = devices;
  decoration.extra_volumes.push_back({{"name", "sys"}, {"hostPath", {{"path", "/sys"}}}});
  decoration.extra_volumes.push_back({{"name", "proc-sys"}, {"hostPath", {{"path", "/proc/sys"}}}});
  decoration.extra_volumes.push_back(
      {{"name", "libraries"}, {"hostPath", {{"path", "/home/kubernetes/bin/nvidia"}}}});
  decoration.extra_volumes.push_back(
      {{"name", "aperture-devices"}, {"hostPath", {{"path", "/dev/aperture_devices"}}}});
  // The image's entrypoint script is not executable as shipped: chmod first.
  const std::string rxdm = std::string("set -ex\nchmod 755 ") + kRxdmEntrypoint + "\n" + kRxdmEntrypoint +
                           " --num_hops=2 --num_nics " + std::to_string(nics) + "\n";
  decoration.init_containers.push_back(
      {{"name", "tcpxo-daemon"},
       {"image", kRxdmImage},
       {"restartPolicy", "Always"},
       {"command", {"/bin/sh", "-c", rxdm}},
       {"securityContext", {{"capabilities", {{"add", {"NET_ADMIN", "NET_BIND_SERVICE"}}}}}},
       {"volumeMounts",
        {{{"name", "libraries"}, {"mountPath", "/usr/local/nvidia"}, {"readOnly", true}},
         {{"name", "sys"}, {"mountPath", "/hostsysfs"}},
         {{"name", "proc-sys"}, {"mountPath", "/hostprocsysfs"}}}},
       {"env", {envVar("LD_LIBRARY_PATH", kNcclLibDir)}}});
  decoration.extra_mounts.push_back(
      {{"name", "libraries"}, {"mountPath", "/usr/local/nvidia"}, {"readOnly", true}});
  decoration.extra_mounts.push_back({{"name", "aperture-devices"}, {"mountPath", "/dev/aperture_devices"}});
  // The profile script sets the NCCL_FASTRAK_* tuning and NCCL_TUNER_CONFIG_PATH
  // for the TCPXO version the node runs; its interface names are the host's,
  // so the pod's follow it.
  decoration.command_prelude = {
      std::string("NCCL_LIB_DIR=") + kNcclLibDir + " . " + kNcclLibDir + "/nccl-env-profile.sh",
      "export NCCL_SOCKET_IFNAME=eth0 NCCL_FASTRAK_CTRL_DEV=eth0 NCCL_FASTRAK_IFNAME=" + nic_list +
          " NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY=/dev/aperture_devices"};
  decoration.env.push_back(envVar("NCCL_SOCKET_IFNAME", "eth0"));
  decoration.env.push_back(envVar("NCCL_FASTRAK_CTRL_DEV", "eth0"));
  decoration.env.push_back(envVar("NCCL_FASTRAK_IFNAME", nic_list));
  decoration.env.push_back(envVar("NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices"));
  decoration.env.push_back(envVar("LD_LIBRARY_PATH", kNcclLibDir));
  decoration.pod_comment =
      "GPUDirect-TCPXO (not RDMA). Prerequisites, not rendered here: the GKE Network and GKENetworkParamSet "
      "objects vpc1..vpc" +
      std::to_string(nics) +
      " (no extra gVNIC network on the GPU node pool: it takes a GPU NIC's "
      "PCI slot), the nccl-tcpxo-installer and NRI device injector DaemonSets. tcpxo-daemon is a native "
      "sidecar "
      "(initContainer, restartPolicy Always), so the pod completes when the test ends. The NCCL tuning is "
      "the "
      "node's nccl-env-profile.sh (it matches the installed TCPXO version), sourced before the test.";
  return Objects{};
}

}  // namespace railkit::k8s::render
