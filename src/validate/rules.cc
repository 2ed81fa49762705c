// validate's own finding ids, declared once: node_check.cc raises them
// from these declarations (see rules.h).
#include "validate/rules.h"

namespace railkit::validate {

extern const ValidateRule kGpuCount = {
    "gpu-count", Severity::kError, "Fewer GPUs visible than the node's profile expects",
    R"(`railkit validate --expect-gpus N` counts the GPUs the node (or pod) can see on its PCI bus.
Fewer than expected means a GPU is missing: it fell off the bus (an Xid 79 in dmesg), its driver did
not bind, it is disabled, or the pod was given fewer GPUs than the node has. A job sized for N GPUs
per node then fails to start or runs a rank short. The finding lists the GPUs that are present, so
the missing PCI address is the one not listed. More GPUs than expected is reported as info: the
profile is out of date, nothing is broken.)",
    R"(Fix: find the missing GPU:
  nvidia-smi -L; lspci -d 10de:
  dmesg | grep -i -e xid -e 'fallen off the bus'
a GPU that fell off the bus needs a GPU reset or a reboot (and, if it recurs, a hardware ticket); in
Kubernetes check resources.limits nvidia.com/gpu; or correct --expect-gpus if the profile is wrong.)"};

extern const ValidateRule kRdmaNicCount = {
    "rdma-nic-count", Severity::kError, "Fewer active RDMA ports on the data rails than expected",
    R"(`railkit validate --expect-nics N` counts the RDMA ports on the node's data rails (every port, or
those the NCCL_IB_HCA-style data-rail list selects) that are ACTIVE and physically LinkUp. Fewer than
expected means a rail is missing: a port is DOWN or Polling (cable, transceiver or switch port), a
device is absent (not bound, failed firmware, not passed to the pod). NCCL does not fail on a missing
rail: it uses the rails it has, and the only sign is lower bandwidth for the whole job, because every
collective runs at the pace of its slowest node. The finding names the ports that are not active,
with their state, and the ones that are. More active ports than expected is reported as info.)",
    R"(Fix: for each named port:
  ibstat <dev>            # State / Physical state
  mlxlink -d <dev> -p 1   # cable, FEC and error counters
  dmesg | grep mlx5
reseat or replace the cable or transceiver, check the switch port; a missing device: lspci | grep
-i mellanox, the driver and firmware; or correct --expect-nics / the data-rail list if wrong.)"};

const std::vector<ValidateRule>& allValidateRules() {
  static const std::vector<ValidateRule> kRules = {kGpuCount, kRdmaNicCount};
  return kRules;
}

const ValidateRule* findValidateRule(std::string_view id) {
  for (const auto& rule : allValidateRules())
    if (id == rule.id) return &rule;
  return nullptr;
}

}  // namespace railkit::validate
