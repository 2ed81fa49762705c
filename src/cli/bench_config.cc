// What bench and validate share: BenchConfig from flags and environment
// (launcher, interfaces, data NIC rates, NCCL settings), the NCCL probe and
// --local's forked ranks.
#include "cli/bench_config.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "bench/bench_options.h"
#include "bench/datatype.h"
#include "bench/interfaces.h"
#include "bench/job_token.h"
#include "bench/nccl/nccl_env.h"
#include "bench/rank_processes.h"
#include "bench/socket_util.h"
#include "bench/sweep.h"
#include "cli/command.h"
#include "core/strings.h"

namespace railkit::cli {
namespace {

using bench::BenchFlags;

// The data NICs' rates (--expect-line-rate without --nic-gbps) and, for the
// nccl backend, NCCL_SOCKET_IFNAME / NCCL_IB_HCA derived from them.
void applyDataNics(const BenchFlags& f, const Environment& env, const FileRoot& nic_root,
                   const std::vector<std::string>& names, bench::BenchConfig& c) {
  bool need_rate = f.expect_line_rate_set && !f.nic_gbps;
  if (!need_rate && f.backend != "nccl") return;
  auto nics = bench::describeDataNics(nic_root, names);
  if (need_rate) {
    auto rate = bench::nodeLineRate(nics);
    if (rate) {
      c.nic_gbps = *rate;
      for (const auto& n : nics) c.nic_rate_source += (c.nic_rate_source.empty() ? "" : " + ") + n.source;
    } else {
      c.nic_rate_source = rate.error().message;
      std::fprintf(stderr, "railkit: warning: --expect-line-rate: %s; pass --nic-gbps\n",
                   c.nic_rate_source.c_str());
    }
  }
  if (f.backend == "nccl") {
    std::vector<bench::DataHca> hcas;
    for (const auto& n : nics) {
      if (!n.rdma_device.empty()) hcas.push_back({n.rdma_device, n.port, n.interface});
    }
    // NCCL's own sockets follow --data-if (see bench/nccl/nccl_env.h).
    std::string spec = f.local > 0 ? "lo" : f.data_if;
    for (const auto& kv : bench::deriveNcclEnv(env, spec, hcas)) {
      c.transport_options.env.push_back(kv);
      c.environment.push_back(kv);
    }
  }
}

// The sweep: sizes from -b/-e/-f/-i (bounds checked by the table), the
// element type and reduction, iterations and the row options.
Status applySweep(const BenchFlags& f, bench::BenchConfig& c) {
  auto minb = bench::parseSize(f.min_bytes);
  auto maxb = bench::parseSize(f.max_bytes);
  auto factor = parseUint(f.factor);
  auto step = bench::parseSize(f.step);
  if (!minb) return tl::unexpected(minb.error().withContext("-b"));
  if (!maxb) return tl::unexpected(maxb.error().withContext("-e"));
  if (!step) return tl::unexpected(step.error().withContext("-i"));
  if (!factor)
    return makeError(ErrorCode::kUsage, "-f: expected an integer factor, found '" + f.factor + "'");
  if (*minb > *maxb && f.op != "p2p" && f.op != "pairs")
    return makeError(ErrorCode::kUsage, "-b is larger than -e");
  c.min_bytes = *minb;
  c.max_bytes = *maxb;
  c.factor = *factor;
  c.step = *step;
  c.sweep.sizes = bench::sweepSizes(*minb, *maxb, *factor, *step);
  c.sweep.iters = f.iters;
  c.sweep.warmup = f.warmup;
  c.sweep.check = f.check != 0;
  c.sweep.average = f.average;
  c.sweep.root = f.root;
  // -d and -o were checked against these same names by the table.
  auto type = bench::dataTypeFromName(f.type);
  auto redop = bench::reduceOpFromName(f.redop);
  if (!type || !redop) return makeError(ErrorCode::kInternal, "-d/-o passed the table but have no kernel");
  c.sweep.type = *type;
  c.sweep.op = *redop;
  return okStatus();
}

// Timeouts, streams, the host name, and the variables the transports read
// (passed on explicitly: the library never reads the environment).
void applyTransport(const BenchFlags& f, const Environment& env, bench::BenchConfig& c) {
  auto& t = c.transport_options;
  c.bootstrap_options.timeout = std::chrono::milliseconds(static_cast<long>(f.bootstrap_timeout * 1000));
  t.stall_timeout = std::chrono::milliseconds(static_cast<long>(f.stall_timeout * 1000));
  t.connections_per_peer = f.connections;
  t.socket_buffer_bytes = bench::parseSize(f.socket_buffer).value_or(t.socket_buffer_bytes);  // checked above
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  t.hostname = host;
  for (const char* key : {"UCX_TLS", "UCX_NET_DEVICES", "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_DEBUG"}) {
    if (auto v = lookup(env, key)) {
      t.env.push_back(std::string(key) + "=" + *v);
      c.environment.push_back(std::string(key) + "=" + *v);
    }
  }
  if (!f.nccl_lib.empty()) t.env.push_back("RAILKIT_NCCL_LIB=" + f.nccl_lib);
  // Where UCX is looked for before the loader path: the flag, else the variable.
  t.ucx_lib_dir = !f.ucx_lib.empty() ? f.ucx_lib : lookup(env, "RAILKIT_UCX_LIB").value_or("");
  // The nccl backend picks one GPU per rank by its local rank.
  for (const char* key : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}) {
    if (auto v = lookup(env, key)) t.env.push_back(std::string(key) + "=" + *v);
  }
}

// Who this rank is, where the rendezvous is, and the job's token.
Status applyLaunch(const BenchFlags& f, const Environment& env, const bench::Launch& launch,
                   bench::BenchConfig& c) {
  auto token = bench::resolveJobToken(f, env);
  if (!token) return tl::unexpected(token.error());
  auto& b = c.bootstrap_options;
  b.job_token = *token;
  c.bootstrap = launch.bootstrap;
  b.kind = launch.bootstrap == "local" ? "local" : "env";
  b.rank = launch.rank;
  b.size = launch.size;
  b.master_addr = launch.master_addr;
  b.master_port = launch.master_port;
  b.mpi_lib_dir = !f.mpi_lib.empty() ? f.mpi_lib : lookup(env, "RAILKIT_MPI_LIB").value_or("");
  return okStatus();
}

// The control and data interfaces (lo for --local); returns the names of
// every data NIC of this node.
Result<std::vector<std::string>> selectInterfaces(const BenchFlags& f, const Environment& env,
                                                  bench::BenchConfig& c) {
  auto& b = c.bootstrap_options;
  auto& t = c.transport_options;
  if (f.local > 0) {
    b.control_address = "127.0.0.1";
    c.control_interface = "lo";
    t.data_interface = "lo";
    t.data_address = "127.0.0.1";
    return std::vector<std::string>{"lo"};
  }
  auto all = bench::listInterfaces();
  Result<bench::NetInterface> ctrl =
      f.ctrl_if.empty() ? (b.master_addr.empty() ? bench::selectInterface(all, "^lo", "control")
                                                 : bench::interfaceRouting(all, b.master_addr))
                        : bench::selectInterface(all, f.ctrl_if, "control");
  if (!ctrl) return tl::unexpected(ctrl.error());
  c.control_interface = ctrl->name;
  // Rank 0 serves the rendezvous on the control address; others bind their end there.
  b.control_address = ctrl->address;
  std::string data_spec = f.data_if;
  if (data_spec.empty()) data_spec = lookup(env, "NCCL_SOCKET_IFNAME").value_or("");
  Result<bench::NetInterface> data = ctrl;
  if (data_spec.empty()) {
    std::fprintf(stderr,
                 "railkit: warning: no --data-if or NCCL_SOCKET_IFNAME; the data plane shares the control "
                 "interface %s\n",
                 ctrl->name.c_str());
  } else {
    data = bench::selectInterface(all, data_spec, "data");
    if (!data) return tl::unexpected(data.error());
  }
  t.data_interface = data->name;
  t.data_address = data->address;
  std::vector<std::string> names;
  if (!data_spec.empty()) names = bench::selectedNames(all, data_spec);
  if (names.empty()) names.push_back(t.data_interface);
  return names;
}

}  // namespace

Result<bench::BenchConfig> makeBenchConfig(const BenchFlags& f, const Environment& env,
                                           const FileRoot& nic_root) {
  // Every flag is checked before any is used: a NaN timeout must not reach
  // the conversions below (UBSan: nan outside the range of long).
  auto launch = bench::resolveLaunch(f, env, bench::mpiBootstrapBuiltIn());
  if (!launch) return tl::unexpected(launch.error());
  if (auto s = bench::validateBenchFlags(f, *launch, bench::physicalMemoryBytes()); !s)
    return tl::unexpected(s.error());
  bench::BenchConfig c;
  c.op = f.op;
  if (auto s = applySweep(f, c); !s) return tl::unexpected(s.error());
  c.backend = f.backend;
  c.expect_busbw = f.expect_busbw;
  if (f.expect_line_rate_set) {
    auto fraction = parseLineRateFraction(f.expect_line_rate);
    if (!fraction) return tl::unexpected(fraction.error());
    c.expect_line_rate = *fraction;
  }
  c.nic_gbps = f.nic_gbps;
  c.pairs_one_way = f.one_way;
  applyTransport(f, env, c);
  if (auto s = applyLaunch(f, env, *launch, c); !s) return tl::unexpected(s.error());
  auto data_names = selectInterfaces(f, env, c);
  if (!data_names) return tl::unexpected(data_names.error());
  auto& t = c.transport_options;
  if (f.backend == "ucx") t.data_rdma_ports = bench::rdmaPortsBehind(FileRoot("/"), t.data_interface);
  applyDataNics(f, env, nic_root, *data_names, c);
  auto& b = c.bootstrap_options;
  b.job_id = f.job_id;
  if (b.job_id.empty()) b.job_id = lookup(env, "RAILKIT_JOB_ID").value_or("");
  if (b.job_id.empty()) b.job_id = bench::defaultJobId(b.master_addr, b.master_port, b.size);
  return c;
}

void addBenchOptions(CLI::App& command, BenchFlags& flags, bench::Command which) {
  for (const bench::BenchOption* o : bench::optionsOf(which)) {
    const char* help = which == bench::Command::kValidate && o->validate_help ? o->validate_help : o->help;
    addTabledOption(command, flags, *o, help, !bench::defaultText(*o, which).empty());
  }
}

Status probeBackendOnce(const bench::BenchConfig& c) {
  if (c.backend == "ucx") return bench::probeUcxInChild(c.transport_options.ucx_lib_dir);
  if (c.backend != "nccl") return okStatus();
  std::string dir;
  for (const auto& kv : c.transport_options.env) {
    if (kv.rfind("RAILKIT_NCCL_LIB=", 0) == 0) dir = kv.substr(17);
  }
  return bench::probeNcclInChild(dir, c.bootstrap_options.size);
}

int runLocalRanks(bench::BenchConfig c, const std::function<int(const bench::BenchConfig&)>& run_rank) {
  if (auto s = probeBackendOnce(c); !s) return reportError(s.error());
  // Rank 0's rendezvous socket is bound here and inherited: a port probed and
  // closed could be taken by another rank's data listener before rank 0 binds.
  int port = 0;
  auto listener = bench::listenOn("127.0.0.1", 0, &port);
  if (!listener) return reportError(listener.error());
  c.bootstrap_options.master_port = port;
  if (c.bootstrap_options.job_id.rfind("rk-", 0) == 0) {
    c.bootstrap_options.job_id = bench::defaultJobId("127.0.0.1", port, c.bootstrap_options.size);
  }
  // Without a token of the user's, the forked ranks share a fresh one: another
  // user's process on this host cannot take a rank's place at the rendezvous.
  if (c.bootstrap_options.job_token.empty()) {
    auto token = bench::newJobToken();
    if (!token) {
      bench::closeFd(*listener);
      return reportError(token.error());
    }
    c.bootstrap_options.job_token = *token;
  }
  auto children = bench::forkRanks(c.bootstrap_options.size, [&](int r) {
    c.bootstrap_options.rank = r;
    if (r == 0) {
      c.bootstrap_options.inherited_listener = *listener;
    } else {
      bench::closeFd(*listener);
    }
    return run_rank(c);
  });
  bench::closeFd(*listener);
  if (!children) return reportError(children.error());
  return bench::superviseRanks(*children, kRankStatuses);
}

}  // namespace railkit::cli
