#include "logs/catalogue.h"

namespace railkit::logs {

// Sorted by id. Each explanation is the text explain prints, as written.
const std::vector<CatalogueEntry>& logsCatalogue() {
  static const std::vector<CatalogueEntry> kEntries = {
      {"nccl-connection-closed", Severity::kError, "A socket to a peer rank was closed or reset",
       R"(NCCL's socket to another rank (bootstrap, proxy or NET/Socket) was closed by the other side or
reset. That rank usually died first (OOM kill, another NCCL error, eviction) and this is the echo;
less often the control network dropped.
Fix: read the named peer's own log for its first WARN or crash, check the pods were not evicted or
OOM-killed, and that the control network stayed up.)"},
      {"nccl-duplicate-gpu", Severity::kError, "Several ranks use the same GPU",
       R"(NCCL refuses a communicator in which two ranks sit on one GPU (`Duplicate GPU detected`,
ncclInvalidUsage). The ranks of a node were all given device 0, or more ranks were started than the
node has GPUs.
Fix: set the device from the local rank (torch.cuda.set_device(LOCAL_RANK)), start one rank per GPU,
and check CUDA_VISIBLE_DEVICES and the pod's GPU request.)"},
      {"nccl-ib-completion-error", Severity::kError, "An RDMA work completion failed",
       R"(A send or receive on an RDMA queue pair completed with an error status (IBV_WC_*). The status says
what failed: 12 (retry exceeded) means the peer never acknowledged, usually a wrong RoCE GID index
or VLAN, a link or switch port down, or PFC/ECN missing; 4 (local protection) with GPU memory is
usually PCIe ACS or the IOMMU breaking GPUDirect RDMA; 10 (remote access) a registration mismatch; 5
(flushed) follows an earlier error. Fix what the reported status points at; ib_write_bw between the
two hosts with the same settings reproduces it without NCCL.)"},
      {"nccl-net-socket", Severity::kError, "Inter-node traffic runs over TCP sockets",
       R"(NCCL chose its Socket transport between hosts (NET/Socket channels, or `Using network Socket` in a
job that spans hosts), so collectives run at a fraction of the RDMA speed. Usually the RDMA devices
are not usable in the container (no /dev/infiniband, no libibverbs/provider, no IPC_LOCK) or
NCCL_IB_DISABLE / NCCL_NET forced it.
Fix: expose the RDMA devices to every pod, install rdma-core, grant IPC_LOCK, unset NCCL_IB_DISABLE;
`railkit doctor` in the pod checks each.)"},
      {"nccl-no-gdr", Severity::kWarning, "RDMA without GPUDirect: transfers staged through host memory",
       R"(Inter-node traffic uses RDMA but not GPUDirect RDMA (no /GDRDMA on the NET channels, `GPU Direct
RDMA Disabled`, or `GDR 0`), so every transfer is copied through host memory and bandwidth drops.
Fix on InfiniBand/RoCE: load nvidia_peermem or use DMA-BUF, keep GPU and NIC under one PCIe switch
or raise NCCL_NET_GDR_LEVEL, disable PCIe ACS / IOMMU translation. On EFA (aws-ofi-nccl): an
instance type that supports GPUDirect RDMA, and FI_EFA_USE_DEVICE_RDMA=1 with Libfabric older than
1.18.)"},
      {"nccl-no-interface", Severity::kError, "NCCL found no usable IP interface",
       R"(NCCL needs an IP interface for its bootstrap and socket traffic, even on one node. It found none
that matches NCCL_SOCKET_IFNAME (or none at all: `Bootstrap : no socket interface found`), or the
address family is wrong.
Fix: set NCCL_SOCKET_IFNAME to an interface that exists in the container and has an address (or
`^lo,docker` to exclude), and check the container has networking.)"},
      {"nccl-proxy-crash", Severity::kError, "The NCCL proxy thread crashed",
       R"(A signal (SIGSEGV, SIGBUS, SIGABRT) hit a thread inside NCCL's proxy. When RDMA resources could not
be created before it (see nccl-verbs-resource-failed) the cause is the memlock limit or a missing
IPC_LOCK.
Fix: raise that limit then; otherwise fix the first NCCL WARN before the crash, and with none keep
the stack trace and NCCL version: a crash inside NCCL is a bug to report, often fixed by a newer
release.)"},
      {"nccl-qp-connect-failed", Severity::kError, "An RDMA queue pair could not be connected",
       R"(ibv_modify_qp failed while moving a queue pair to RTR/RTS: the peer's address is not reachable with
the GID index, route or network namespace in use. errno 110 (timed out) means the peer's NIC never
answered: wrong GID index, different subnets or VLANs, or a rail-only fabric where this NIC cannot
reach the peer's (NCCL_CROSS_NIC=0).
Fix: NCCL_IB_GID_INDEX of the RoCE v2 GID on the data interface, the RDMA device in the pod's
network namespace with an address, both ends on a routable subnet.)"},
      {"nccl-shm-failure", Severity::kError, "A shared-memory segment could not be created or attached",
       R"(NCCL moves data between ranks of one node through /dev/shm. Creating a segment fails for space when
/dev/shm is small (64 MiB is the container default).
Fix: mount a larger one (emptyDir medium Memory, --shm-size). Attaching fails (the segment is not
found) when the ranks of a node do not share /dev/shm (separate containers without a shared IPC
namespace) or something removed it: run them in one pod or share the IPC namespace.
NCCL_SHM_DISABLE=1 only works around either at a speed cost.)"},
      {"nccl-tests-busbw-low", Severity::kError, "nccl-tests bus bandwidth below the expected bound",
       R"(The bus bandwidth nccl-tests measured at the largest size is below what --expect-busbw or the line
rate of the NICs allows.
Fix: check every NIC is ACTIVE at full rate and carries the traffic (NCCL_IB_HCA,
NCCL_SOCKET_IFNAME), that NCCL used RDMA with GPUDirect (no NET/Socket, /GDRDMA present), and the
GPU-NIC affinity; `railkit doctor` on each node.)"},
      {"nccl-tests-out-of-bounds", Severity::kError, "nccl-tests reported out-of-bounds values",
       R"(nccl-tests checks every result against its expected value; `Out of bounds values : N FAILED` means N
values were wrong beyond rounding: data was corrupted or a rank wrote outside its buffer.
Fix: check that every rank runs the same NCCL build, GPU and NIC health (dmesg Xid, mlx5 errors),
and rerun with NCCL_PROTO=Simple to isolate the protocol.)"},
      {"nccl-tests-wrong-results", Severity::kError, "nccl-tests counted wrong result elements",
       R"(The #wrong column of an nccl-tests table is not zero: collectives returned wrong data. Wrong results
are never a tuning problem.
Fix: rerun with NCCL_PROTO=Simple and NCCL_ALGO=Ring to isolate the protocol, and check GPU and NIC
health (dmesg Xid, mlx5 errors).)"},
      {"nccl-timeout", Severity::kError, "A collective timed out or a watchdog fired",
       R"(A collective did not finish in time (PyTorch's NCCL watchdog, NCCL's own timeouts): some rank
stopped participating because it crashed, hung, entered a different collective, or its network path
broke.
Fix: find the rank that did not arrive by reading every rank's log for its first error; raise the
timeout only when the work is genuinely slow.)"},
      {"nccl-unhandled-error", Severity::kError, "NCCL returned an error to the application",
       R"(An NCCL call failed and returned its result code (system, internal, invalid usage, remote error...)
to the application. The code alone rarely names the cause: the finding points at the finding that
explains it when one fired, else at the WARN lines NCCL printed (or PyTorch's `Last error:`).
Fix: what that finding or WARN names; with neither, rerun with NCCL_DEBUG=INFO and
NCCL_DEBUG_SUBSYS=INIT,NET.)"},
      {"nccl-verbs-open-failed", Severity::kError, "The RDMA device cannot be opened",
       R"(NCCL saw an RDMA device but could not open it: the device nodes (/dev/infiniband/uverbs*) are not
exposed to the container or not accessible.
Fix: give the pod the RDMA device (RDMA shared device plugin, SR-IOV VF or a DRA claim), or run
privileged with the host's devices; `railkit doctor` in the pod checks it.)"},
      {"nccl-verbs-resource-failed", Severity::kError, "RDMA resources could not be created",
       R"(Registering memory or creating queue pairs/completion queues failed (ibv_reg_mr, ibv_create_qp...).
Nearly always the locked-memory limit (RLIMIT_MEMLOCK) is too low or the pod lacks IPC_LOCK.
Fix: an unlimited memlock limit for the container (`--ulimit memlock=-1`, the runtime's default
ulimits) and the IPC_LOCK capability.)"},
      {"nccl-version-mismatch", Severity::kError, "The ranks of one job run different NCCL builds or plugins",
       R"(NCCL requires every rank of a communicator to run the same version with the same network plugin and
network choice; mixed versions fail in odd ways (hangs, remote access errors, wrong results).
Fix: run every rank from the same image, with the same libnccl-net plugin and NCCL_NET /
NCCL_NET_PLUGIN settings.)"},
      {"perftest-failed", Severity::kError, "A perftest run (ib_write_bw, ...) failed",
       R"(The perftest tool stopped with an error, typically a work completion with an error status. The
status says what failed: 12 the peer never acknowledged (GID index, route, link, PFC/ECN), 13 the
receiver had no buffer (start the server first), 10 a remote access error (registration, GPU memory
support), 4 a local protection error (PCIe ACS or IOMMU with --use_cuda), 5 flushed after an earlier
error.
Fix: what the reported status points at, then rerun the same test between the same two ports.)"},
  };
  return kEntries;
}

const CatalogueEntry* findLogsEntry(std::string_view id) {
  for (const auto& e : logsCatalogue())
    if (id == e.id) return &e;
  return nullptr;
}

}  // namespace railkit::logs
