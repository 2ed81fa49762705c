#pragma once
// The finding ids more than one command raises, declared once with one
// meaning. doctor (the running process) and lint (the manifests) must not
// include each other, so the declarations live here, in the layer both see;
// each domain's rule pairs the declaration with its own check, and the
// explanation says what each detector looks at. An id raised by one command
// only is declared next to its check instead.

#include "core/rule_info.h"

namespace railkit::shared_rules {

inline constexpr RuleInfo kIpcLockMissing = {
    "ipc-lock-missing", Severity::kError, "RDMA process or container without CAP_IPC_LOCK",
    R"(RDMA registers (pins) the memory it sends from. Without CAP_IPC_LOCK a process is held to
RLIMIT_MEMLOCK for those registrations (often 64 KiB in a container), ibv_reg_mr fails for large
buffers, and NCCL's network proxy crashes, UCX refuses to register GPU/host buffers, or NCCL falls
back to sockets. Where the memlock limit is already unlimited the capability is not needed for
registration, so there the finding is info, from both detectors:
- `railkit doctor` reads the running process: CapEff (/proc/self/status) lacks CAP_IPC_LOCK while
  RDMA devices exist. Error, or info when RLIMIT_MEMLOCK is unlimited in effect (the word, a value
  near 2^64, or at least MemTotal; see memlock-limit).
- `railkit lint` reads the manifest: a container that uses RDMA neither adds IPC_LOCK nor runs
  privileged. Error, or info on platforms whose runtime runs every container with memlock
  unlimited (GKE GPU nodes, EKS EFA nodes, CoreWeave); lint cannot see the node's limit elsewhere.)",
    R"(Fix: in the pod spec, on every RDMA container
  securityContext:
    capabilities:
      add: ["IPC_LOCK"]
(a Pod Security level of `privileged` or a namespace exemption is needed for this capability), or
memlock unlimited in the runtime's base spec (railkit render node-prep).)"};

inline constexpr RuleInfo kOmpiBtlIfUnset = {
    "ompi-btl-if-unset", Severity::kWarning, "Open MPI may route its TCP traffic over the wrong interface",
    R"(Open MPI's TCP BTL and its out-of-band channel use every interface they find unless told otherwise. In
a pod with the pod network (eth0) and an RDMA secondary network (net1, an SR-IOV VF or macvlan), MPI
may try to reach the other pods over net1, which carries no cluster routes or DNS: mpirun fails with
'No route to host', hangs in MPI_Init, or barriers time out. Keep MPI's control plane on eth0 and
leave net1 to NCCL.
- `railkit doctor` reads the running process: Open MPI is in use (OMPI_* variables), two or more
  non-loopback interfaces exist, and neither OMPI_MCA_btl_tcp_if_include nor _exclude is set.
- `railkit lint` reads the manifest: an MPIJob's workers get extra interfaces (a secondary network
  or a DRA claim that gives a NIC) and the launcher's mpirun sets btl_tcp_if_include/exclude
  neither with --mca nor in its environment.)",
    R"(Fix: on the launcher and forwarded to the workers
  env:
  - name: OMPI_MCA_btl_tcp_if_include
    value: eth0
  - name: OMPI_MCA_oob_tcp_if_include
    value: eth0
or `mpirun --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 -x NCCL_SOCKET_IFNAME ...`
(btl_tcp_if_exclude=lo,net1 works too; include and exclude must not both be set).)"};

inline constexpr RuleInfo kOmpiCollConflict = {
    "ompi-coll-conflict", Severity::kWarning, "Open MPI HCOLL/UCC collectives left enabled next to NCCL",
    R"(Open MPI loads the hcoll and ucc collective components when the image carries them (HPC-X, NGC
images). In pods without the matching fabric setup they hang at MPI_Init or crash; with NCCL doing
the data-plane work they add nothing.
- `railkit doctor` reads the running process: Open MPI is in use (OMPI_* variables) and
  OMPI_MCA_coll_hcoll_enable or OMPI_MCA_coll_ucc_enable is unset or not 0. Warning.
- `railkit lint` reads the manifest: an MPIJob whose ranks run NCCL does not disable them (--mca,
  `coll ^hcoll,ucc`, or the environment the ranks get). Warning when set to something other than 0,
  info when unset, since lint cannot see whether the image carries HCOLL/UCC.)",
    R"(Fix: in the launcher's environment or mpirun line
  -x OMPI_MCA_coll_hcoll_enable=0 -x OMPI_MCA_coll_ucc_enable=0
or `--mca coll_hcoll_enable 0 --mca coll_ucc_enable 0`.)"};

inline constexpr RuleInfo kIbNoSubnetManager = {
    "ib-no-subnet-manager", Severity::kError, "InfiniBand port waits for a subnet manager",
    R"(An InfiniBand fabric needs a subnet manager (OpenSM on a host, the SM of a managed switch, UFM):
it assigns every port its LID and programs the switches' routes. Without one, a port that is
physically up stays INIT (or ARMED) and no queue pair can reach another node: NCCL falls back to
sockets or fails to connect.
- `railkit doctor` reads the node's ports: an InfiniBand port that is LinkUp but INIT or ARMED, or
  ACTIVE with SM LID 0.
- `railkit fabric --sminfo FILE` reads what `sminfo` printed on a node of the fabric: no subnet
  manager answered (sminfo's "iberror: failed: query"), or the one that answered is not master
  (standby, discovering or not active, and no master answered).)",
    R"(Fix: `sminfo` or `ibstat` shows the SM LID. Enable the SM of a managed switch or UFM, or run OpenSM on one host:
  apt-get install opensm && systemctl enable --now opensm)"};

}  // namespace railkit::shared_rules
