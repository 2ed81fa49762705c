#include "k8s/render/launch_scripts.h"

#include <algorithm>

#include "k8s/render/lldp.h"

namespace railkit::k8s::render {
namespace {

std::string joined(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : ",") + item;
  return out;
}

// Seconds a pod waits for its peers' DNS names, for rank 0's sshd, and the
// bound on one perftest run: a job that cannot start ends instead of hanging.
constexpr const char* kWaitSeconds = "600";

// Written in each peer by rank 0 (over ssh) when mpirun has ended.
constexpr const char* kRunOverMarker = "/run/railkit-run-over";

std::string sshPort(const PodNetwork& net) {
  return net.ssh_port == 22 ? "" : "-p " + std::to_string(net.ssh_port) + " ";
}

}  // namespace

PodNetwork podNetwork(const Profile& profile, const PodDecoration& decoration) {
  PodNetwork net;
  net.ctrl_if = profile.mode == "gke-tcpxo" ? "eth0" : profile.control_interface;
  net.data_ifs = decoration.pod_data_interfaces;
  // railkit bench over tcp needs no RDMA device, and GPUDirect-TCPXO has
  // none: there `railkit env` still prints the interfaces, without --check.
  // railkit validate checks the devices itself: its phase 1 names the node
  // and what it lacks in rank 0's verdict, where a pod stopped by --check
  // would leave rank 0 waiting for a rank that never comes (incomplete).
  net.rdma_expected = profile.mode != "gke-tcpxo" && profile.test.tool != "validate" &&
                      !(profile.test.tool == "railkit" && profile.test.backend == "tcp");
  net.ssh_port = decoration.host_network ? 2222 : 22;
  for (const std::string& line : decoration.command_prelude) net.mode_prelude += line + "\n";
  if (!profile.railkit_image.empty()) net.railkit = kRailkitInjectedBinary;
  return net;
}

std::string envPrelude(const PodNetwork& net) {
  std::string call = net.railkit + " env --ctrl-if " + net.ctrl_if;
  if (!net.data_ifs.empty()) call += " --data-if " + joined(net.data_ifs);
  if (net.rdma_expected) call += " --check";
  return "railkit_env=$(" + call + ") || exit 1\neval \"$railkit_env\"\n" + net.mode_prelude;
}

std::string benchCommand(const Profile& profile, const PodNetwork& net) {
  std::string out = net.railkit + " bench " + profile.test.op + " --backend " + profile.test.backend;
  if (!net.data_ifs.empty()) out += " --data-if =" + joined(net.data_ifs);
  return out + " --ctrl-if =" + net.ctrl_if + " -b " + profile.test.min_bytes + " -e " +
         profile.test.max_bytes;
}

// The counts phase 1 expects come from the profile: one RDMA port per data
// interface (every mode gives a pod one device per rail), gpusPerNode GPUs.
// GPUDirect-TCPXO has no RDMA device to count. No --rails: validate reads
// NCCL_IB_HCA, which railkit env computed from the pod's own devices.
std::string validateCommand(const Profile& profile, const PodNetwork& net) {
  std::string out = net.railkit + " validate --backend " + profile.test.backend;
  if (!net.data_ifs.empty()) out += " --data-if =" + joined(net.data_ifs);
  out += " --ctrl-if =" + net.ctrl_if;
  if (profile.mode != "gke-tcpxo") out += " --expect-nics " + std::to_string(profile.data_interfaces.size());
  out += " --expect-gpus " + std::to_string(profile.gpus_per_node);
  if (!profile.test.op.empty()) out += " --ops " + profile.test.op;
  if (!profile.test.min_bytes.empty()) out += " -b " + profile.test.min_bytes;
  if (!profile.test.max_bytes.empty()) out += " -e " + profile.test.max_bytes;
  if (!profile.test.slow_fraction.empty()) out += " --slow-fraction " + profile.test.slow_fraction;
  return out + lldpctlFlag(profile);
}

std::string railkitCommand(const Profile& profile, const PodNetwork& net) {
  return profile.test.tool == "validate" ? validateCommand(profile, net) : benchCommand(profile, net);
}

std::string ncclTestsCommand(const Profile& profile) {
  return profile.test.op + "_perf -b " + profile.test.min_bytes + " -e " + profile.test.max_bytes +
         " -f 2 -g 1";
}

std::string perRankWrapper(const PodNetwork& net, const std::string& command) {
  std::string prelude = envPrelude(net);
  prelude.pop_back();  // the last newline
  for (size_t at = prelude.find('\n'); at != std::string::npos; at = prelude.find('\n', at))
    prelude.replace(at, 1, "; ");
  return "bash -c '" + prelude + "; exec " + command + "'";
}

std::string indexedBenchScript(const Profile& profile, const PodNetwork& net) {
  // One rank per GPU, as torchrun --nproc-per-node runs them: the pod's
  // RANK and WORLD_SIZE (or Trainer's PET_*) count pods, railkit forks the
  // rest. validate runs one rank per node. exec: the pod's exit status is
  // railkit's (rank 0's is validate's verdict).
  bool per_gpu = profile.test.tool == "railkit" && profile.gpus_per_node > 1;
  std::string per_node = per_gpu ? " --nproc-per-node " + std::to_string(profile.gpus_per_node) : "";
  return envPrelude(net) + "exec " + railkitCommand(profile, net) + per_node + "\n";
}

std::string sshKeySecretName(const Profile& profile) {
  return profile.name + "-ssh";
}

std::string sshdStartLines(const PodNetwork& net) {
  std::string mount = kSshKeyMount;
  std::string port = net.ssh_port == 22 ? "" : " -p " + std::to_string(net.ssh_port);
  return "mkdir -p /run/sshd /root/.ssh\n"
         "chmod 700 /root/.ssh\n"
         "install -m 600 " +
         mount +
         "/ssh-privatekey /root/.ssh/id_ecdsa\n"
         "install -m 600 " +
         mount +
         "/ssh-publickey /root/.ssh/authorized_keys\n"
         "ssh-keygen -A >/dev/null  # host keys, where the image has none\n"
         "/usr/sbin/sshd -D -e" +
         port +
         " &\n"
         "sshd_pid=$!\n";
}

// orte_keep_fqdn_hostnames: OpenMPI would otherwise cut pod-0.svc to pod-0,
// which only the pod itself resolves (the MPI Operator sets the same).
std::string mpirunOptions(const PodNetwork& net) {
  std::string port = sshPort(net);
  return "--allow-run-as-root --bind-to none \\\n"
         "  --mca plm_rsh_args \"" +
         port +
         "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectionAttempts=10\" \\\n"
         "  --mca btl self,tcp --mca btl_tcp_if_include " +
         net.ctrl_if +
         " \\\n"
         "  --mca oob_tcp_if_include " +
         net.ctrl_if +
         " --mca pml ob1 --mca routed direct \\\n"
         "  --mca coll_hcoll_enable 0 --mca coll ^hcoll,ucc --mca orte_keep_fqdn_hostnames 1 \\\n";
}

std::string indexedMpiScript(const Profile& profile, const PodNetwork& net, const std::string& host_of_rank,
                             const std::vector<std::string>& forward) {
  size_t at = host_of_rank.find("{i}");
  std::string before = host_of_rank.substr(0, at);
  std::string after = host_of_rank.substr(at + 3);
  return indexedMpiScript(profile, net, RankHosts{"", before + "$i" + after, before + "0" + after}, forward);
}

namespace {

// Rank 0's part: the hostfile, wait-dns, mpirun, then telling each peer the
// run is over.
std::string rankZeroRun(const Profile& profile, const PodNetwork& net, const std::string& host,
                        const std::string& exports) {
  std::string ranks = std::to_string(profile.nodes * profile.gpus_per_node);
  return "if [ \"${RANK:-${PET_NODE_RANK:-}}\" = 0 ]; then\n"
         "  hostfile=/tmp/railkit-hostfile\n"
         "  : >\"$hostfile\"\n"
         "  i=0\n"
         "  while [ \"$i\" -lt " +
         std::to_string(profile.nodes) +
         " ]; do\n"
         "    echo \"" +
         host + " slots=" + std::to_string(profile.gpus_per_node) +
         "\" >>\"$hostfile\"\n"
         "    i=$((i + 1))\n"
         "  done\n"
         "  " +
         net.railkit + " wait-dns --hostfile \"$hostfile\" --timeout " + kWaitSeconds +
         " || { kill \"$sshd_pid\"; exit 3; }\n"
         "  mpirun --hostfile \"$hostfile\" -np " +
         ranks + " " + mpirunOptions(net) + "    " + exports +
         " \\\n"
         "    " +
         perRankWrapper(net, ncclTestsCommand(profile)) +
         "\n"
         "  status=$?\n"
         "  # Tell each peer the run is over: they end on this, not on a probe of\n"
         "  # rank 0 that a short run can slip between.\n"
         "  i=1\n"
         "  while [ \"$i\" -lt " +
         std::to_string(profile.nodes) +
         " ]; do\n"
         "    ssh " +
         sshPort(net) +
         "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=10 "
         "\\\n"
         "      \"" +
         host + "\" 'touch " + kRunOverMarker + "' || echo \"could not tell " + host +
         " the run is over\" >&2\n"
         "    i=$((i + 1))\n"
         "  done\n"
         "  kill \"$sshd_pid\"\n"
         "  exit \"$status\"\n"
         "fi\n";
}

// The other ranks' part: sshd until rank 0 says the run is over, or is gone.
std::string peersServeUntilOver(const std::string& master, const std::string& port) {
  return std::string("# The other ranks serve sshd until rank 0 says the run is over (") + kRunOverMarker +
         ",\n"
         "# written over ssh: a plain Indexed Job has no success policy to end them).\n"
         "# Should rank 0 vanish without saying so, they end once its sshd, seen\n"
         "# before, stops answering; never seen within the wait, they fail.\n"
         "master=" +
         master +
         "\n"
         "probe() { timeout 5 bash -c \": <>/dev/tcp/$master/" +
         port +
         "\" 2>/dev/null; }\n"
         "seen=0 misses=0 start=$(date +%s)\n"
         "while [ ! -e " +
         kRunOverMarker +
         " ]; do\n"
         "  if probe; then\n"
         "    seen=1 misses=0\n"
         "  elif [ \"$seen\" = 1 ]; then\n"
         "    misses=$((misses + 1))\n"
         "    if [ \"$misses\" -ge 3 ]; then echo \"rank 0 ($master) ended without saying the run is over\" "
         ">&2; break; fi\n"
         "  elif [ $(($(date +%s) - start)) -ge " +
         kWaitSeconds +
         " ]; then\n"
         "    echo \"rank 0 ($master) never answered on port " +
         port +
         "\" >&2; kill \"$sshd_pid\"; exit 3\n"
         "  fi\n"
         "  sleep 2\n"
         "done\n"
         "kill \"$sshd_pid\"\n"
         "exit 0\n";
}

}  // namespace

std::string indexedMpiScript(const Profile& profile, const PodNetwork& net, const RankHosts& hosts,
                             const std::vector<std::string>& forward) {
  const std::string& master = hosts.master;
  const std::string& host = hosts.host;
  std::string port = std::to_string(net.ssh_port);
  // ssh starts the ranks with a bare environment: the pod's variables go with -x.
  std::string exports = "-x PATH";
  if (std::find(forward.begin(), forward.end(), "LD_LIBRARY_PATH") == forward.end())
    exports += " -x LD_LIBRARY_PATH";
  for (const std::string& name : forward) exports += " -x " + name;
  return envPrelude(net) + sshdStartLines(net) + hosts.setup + rankZeroRun(profile, net, host, exports) +
         peersServeUntilOver(master, port);
}

std::string indexedPerftestScript(const Profile& profile, const PodNetwork& net, const std::string& server) {
  const std::string& tool = profile.test.op;
  return envPrelude(net) +
         "# The RDMA device this pod has: the first entry of NCCL_IB_HCA (else\n"
         "# UCX_NET_DEVICES) as railkit env computed it, dev or dev:port.\n"
         "hca=${NCCL_IB_HCA:-${UCX_NET_DEVICES:-}}\n"
         "hca=${hca#=}\n"
         "hca=${hca%%,*}\n"
         "device=${hca%%:*}\n"
         "port=1\n"
         "case \"$hca\" in *:*) port=${hca#*:} ;; esac\n"
         "if [ -z \"$device\" ]; then echo \"railkit env found no RDMA device for " +
         tool +
         "\" >&2; exit 1; fi\n"
         "set -- -d \"$device\" -i \"$port\" --report_gbits -a -F\n"
         "if [ -n \"${NCCL_IB_GID_INDEX:-}\" ]; then set -- \"$@\" -x \"$NCCL_IB_GID_INDEX\"; fi\n"
         "if [ \"${RANK:-${PET_NODE_RANK:-}}\" = 0 ]; then exec timeout " +
         kWaitSeconds + " " + tool +
         " \"$@\"; fi\n"
         "echo " +
         server + " >/tmp/railkit-server\n" + net.railkit +
         " wait-dns --hostfile /tmp/railkit-server --timeout " + kWaitSeconds +
         " || exit 3\n"
         "# The server may not listen yet: retry the client until one deadline.\n"
         "deadline=$(($(date +%s) + " +
         kWaitSeconds +
         "))\n"
         "while :; do\n"
         "  left=$((deadline - $(date +%s)))\n"
         "  if [ \"$left\" -le 0 ]; then echo \"" +
         tool + ": no run with " + server +
         " before the deadline\" >&2; exit 3; fi\n"
         "  if timeout \"$left\" " +
         tool + " \"$@\" " + server +
         "; then exit 0; fi\n"
         "  sleep 2\n"
         "done\n";
}

}  // namespace railkit::k8s::render
