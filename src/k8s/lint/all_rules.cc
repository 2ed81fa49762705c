// The lint rule table: one row per rule, sorted by id.
#include "k8s/lint/lint.h"
#include "k8s/lint/rules/rules.h"

namespace railkit::k8s {

const std::vector<Rule>& allRules() {
  static const std::vector<Rule> kRules = {
      {"cap-prefix", "capability written with the CAP_ prefix", rules::checkCapPrefix},
      {"cni-config-invalid-json", "CNI ipam/config string is not valid JSON", rules::checkCniConfigInvalidJson},
      {"extended-resource-mismatch", "extended resource requests differ from limits",
       rules::checkExtendedResourceMismatch},
      {"host-network", "pod uses the host network namespace", rules::checkHostNetwork},
      {"ipc-lock-missing", "RDMA container without IPC_LOCK", rules::checkIpcLockMissing},
      {"nccl-env-not-forwarded", "NCCL/UCX variables on the MPI launcher do not reach the ranks",
       rules::checkNcclEnvNotForwarded},
      {"nccl-socket-ifname-mismatch", "NCCL_SOCKET_IFNAME names an interface the pod will not have",
       rules::checkNcclSocketIfnameMismatch},
      {"ompi-btl-if-unset", "mpirun may route TCP traffic over any interface", rules::checkOmpiBtlIfUnset},
      {"ompi-coll-conflict", "Open MPI HCOLL/UCC collectives left enabled next to NCCL", rules::checkOmpiCollConflict},
      {"ompi-mca-misused", "Open MPI parameters that are ineffective or contradict each other",
       rules::checkOmpiMcaMisused},
      {"privileged-container", "container runs privileged", rules::checkPrivilegedContainer},
      {"pss-forbids-ipc-lock", "namespace Pod Security level rejects IPC_LOCK", rules::checkPssForbidsIpcLock},
      {"schema", "object does not match its OpenAPI/CRD schema", rules::checkSchema},
      {"shm-default", "NCCL workload keeps the 64 MiB default /dev/shm", rules::checkShmDefault},
      {"slots-gpu-mismatch", "MPIJob slotsPerWorker differs from GPUs per worker", rules::checkSlotsGpuMismatch},
      {"unexpanded-placeholder", "template placeholder left in a value", rules::checkUnexpandedPlaceholder},
      {"yaml-duplicate-key", "mapping key given twice", rules::checkYamlDuplicateKey},
  };
  return kRules;
}

}  // namespace railkit::k8s
