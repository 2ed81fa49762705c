// rdma-netns-shared: SR-IOV VFs are meant to be handed to one pod each, but
// while ib_core's netns_mode is shared every RDMA device stays visible in
// every network namespace and the RDMA CNI cannot move a VF's device into a pod.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::string pciDevicePath(const model::RdmaDevice& d, const std::string& file) {
  return std::string(sys::paths::kBusPciDevices) + "/" + (d.pci ? d.pci->address : d.name) + "/" + file;
}

std::vector<Finding> check(const DoctorInput& in) {
  const auto& inv = in.inventory;
  if (!inv.rdma_netns_shared.value_or(false)) return {};
  std::vector<Finding> out;
  for (const auto& d : inv.rdma_devices) {
    int vfs = d.sriov.num_vfs.value_or(0);
    if (vfs <= 0) continue;
    out.push_back(makeFinding(
        kRdmaNetnsShared, d.name,
        d.name + " has " + std::to_string(vfs) +
            " SR-IOV VF(s) configured while the RDMA subsystem is in shared netns mode: VF RDMA "
            "devices are not "
            "isolated per pod",
        {{sys::paths::kIbCoreNetnsMode, std::nullopt, "Y"},
         {pciDevicePath(d, "sriov_numvfs"), std::nullopt, std::to_string(vfs)}},
        "echo 'options ib_core netns_mode=0' > /etc/modprobe.d/ib_core.conf, update-initramfs -u, "
        "reboot (or SriovNetworkPoolConfig rdmaMode: exclusive); not 'rdma system set netns "
        "exclusive' on a node with pods: the kernel refuses it while other namespaces exist"));
  }
  return out;
}

}  // namespace

extern const Rule kRdmaNetnsShared = {
    {"rdma-netns-shared", Severity::kWarning, "SR-IOV VFs configured while RDMA netns mode is shared",
     R"(The kernel's RDMA subsystem runs in one of two network-namespace modes. In shared mode (the default,
`netns_mode=Y`) every RDMA device is visible from every network namespace: fine for the shared device
plugin with macvlan/ipvlan, wrong for SR-IOV, where each pod should own one VF. The RDMA CNI can then not
move the VF's RDMA device into the pod's namespace, pods see each other's devices, and NCCL may pick a
VF that belongs to another pod.)",
     R"(Fix (on each SR-IOV node):
  rdma system                           # prints 'netns shared ...'
  echo 'options ib_core netns_mode=0' > /etc/modprobe.d/ib_core.conf
  update-initramfs -u && reboot         # ib_core loads early; the initramfs must carry the option
or, with the SR-IOV Network Operator, a SriovNetworkPoolConfig with `rdmaMode: exclusive` (the operator
writes the same option and reboots the nodes in turn). `rdma system set netns exclusive` switches at run
time only while no other network namespace exists: on a node that already runs pods the kernel refuses it
(EBUSY, rdma-system(8)). `railkit render node-prep` writes the modprobe file.
and add the RDMA CNI to the SR-IOV network so the VF's RDMA device follows its netdev:
  apiVersion: sriovnetwork.openshift.io/v1
  kind: SriovNetwork
  spec: {resourceName: mlnx_vf, metaPlugins: '{"type": "rdma"}'})"},
    check};

}  // namespace railkit::doctor
