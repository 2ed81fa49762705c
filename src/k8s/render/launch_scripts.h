#pragma once
// The shell the rendered pods run. Every pod command opens with `railkit env`,
// which computes NCCL_IB_HCA, NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX and
// UCX_NET_DEVICES from the devices the pod really has (the host's names are
// wrong inside a pod with a VF, a claimed NIC or a moved PF), and then runs
// one of three shapes of multi-node test:
//   - railkit bench or validate with the env bootstrap (RANK, WORLD_SIZE, MASTER_ADDR);
//   - an MPI program (nccl-tests) under mpirun over ssh, each rank wrapped so
//     that it computes its own pod's settings;
//   - perftest: rank 0 the server, rank 1 the client given rank 0's name.
// Everything a profile puts in here was checked to be a plain word
// (finishProfile), so no value can carry shell syntax.
#include <string>
#include <vector>

#include "k8s/render/parts.h"

namespace railkit::k8s::render {

// The pod's network as the scripts see it.
struct PodNetwork {
  std::string ctrl_if;                // control interface, as the pod names it
  std::vector<std::string> data_ifs;  // PodDecoration::pod_data_interfaces
  bool rdma_expected = true;          // railkit env --check: RDMA must be there
  int ssh_port = 22;                  // 2222 with hostNetwork (the node's sshd holds 22)
  std::string mode_prelude;           // PodDecoration::command_prelude, one line each
  // How the scripts call railkit: from the image's PATH, or the copy an
  // initContainer put in the pod (kRailkitInjectedBinary, railkitImage).
  std::string railkit = "railkit";
};

PodNetwork podNetwork(const Profile& profile, const PodDecoration& decoration);

// The two opening lines: railkit env's exports, or exit 1 when --check
// finds an expected interface or RDMA device missing.
std::string envPrelude(const PodNetwork& net);
// railkit bench OP --backend B --data-if =LIST --ctrl-if =IF -b MIN -e MAX
std::string benchCommand(const Profile& profile, const PodNetwork& net);
// railkit validate --backend B --data-if =LIST --ctrl-if =IF --expect-nics N
// --expect-gpus G [--ops OPS] [-b MIN] [-e MAX]: one rank per node.
std::string validateCommand(const Profile& profile, const PodNetwork& net);
// The railkit command of the profile's test: validate's or bench's.
std::string railkitCommand(const Profile& profile, const PodNetwork& net);
// The nccl-tests binary and its flags, one GPU per MPI rank.
std::string ncclTestsCommand(const Profile& profile);
// `bash -c '<prelude> exec COMMAND'`: one MPI rank that computes its own
// pod's settings before it starts (mpirun's -x would copy the launcher's).
std::string perRankWrapper(const PodNetwork& net, const std::string& command);

// Indexed pods (indexed-job, jobset, trainjob torch): rank from RANK or
// PET_NODE_RANK; railkit bench (one rank per GPU) or railkit validate (one
// per pod).
std::string indexedBenchScript(const Profile& profile, const PodNetwork& net);

// Indexed pods running an MPI program: every pod serves sshd; rank 0 waits
// for the peers' names, writes the hostfile and runs mpirun; the others end
// once rank 0's sshd stops answering. `host_of_rank` is the DNS name of rank
// i with "{i}" in place of the index; `forward` names the pod variables
// mpirun passes on (-x) to the ranks it starts over ssh.
std::string indexedMpiScript(const Profile& profile, const PodNetwork& net, const std::string& host_of_rank,
                             const std::vector<std::string>& forward);

// How the script names rank $i's host where no one pattern covers every rank
// (a Volcano Job: rank 0 is the master task's pod, the rest the worker
// task's): `setup` holds shell lines the script runs first (a function),
// `host` the text, inside double quotes, that names rank $i's host, `master`
// rank 0's host as a literal.
struct RankHosts {
  std::string setup;
  std::string host;
  std::string master;
};
std::string indexedMpiScript(const Profile& profile, const PodNetwork& net, const RankHosts& hosts,
                             const std::vector<std::string>& forward);

// perftest between two indexed pods: rank 0 serves, rank 1 connects to
// `server`. Both sides bounded by timeout.
std::string indexedPerftestScript(const Profile& profile, const PodNetwork& net, const std::string& server);

// The mpirun options that keep MPI's own traffic on the control interface
// and make ssh accept fresh pods' host keys.
std::string mpirunOptions(const PodNetwork& net);

// Where the rendered SSH key Secret is mounted, and the Secret's name.
inline constexpr const char* kSshKeyMount = "/etc/railkit/ssh";
std::string sshKeySecretName(const Profile& profile);
// Lines that install the mounted key pair for root and start sshd in the
// background (pid in $sshd_pid).
std::string sshdStartLines(const PodNetwork& net);

}  // namespace railkit::k8s::render
