// `railkit bench OP`: flags and environment -> BenchConfig, the launcher
// choice (--local and --nproc-per-node fork ranks, see bench/rank_processes.h;
// mpirun; env), and outcome -> exit status.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "bench/bench_flags.h"
#include "bench/interfaces.h"
#include "bench/job_token.h"
#include "bench/rank_processes.h"
#include "bench/nccl/nccl_env.h"
#include "bench/run.h"
#include "bench/socket_util.h"
#include "bench/sweep.h"
#include "cli/commands.h"
#include "core/collective_factors.h"
#include "core/strings.h"

namespace railkit::cli {
namespace {

using bench::BenchFlags;

struct BenchCli {
  BenchFlags flags;
  OutputOptions output;
};

// The data NICs' rates (--expect-line-rate without --nic-gbps) and, for the
// nccl backend, NCCL_SOCKET_IFNAME / NCCL_IB_HCA derived from them.
void applyDataNics(const BenchFlags& f, const Environment& env, const std::vector<std::string>& names,
                   bench::BenchConfig& c) {
  bool need_rate = f.expect_line_rate_set && !f.nic_gbps;
  if (!need_rate && f.backend != "nccl") return;
  auto nics = bench::describeDataNics(FileRoot("/"), names);
  if (need_rate) {
    auto rate = bench::nodeLineRate(nics);
    if (rate) {
      c.nic_gbps = *rate;
      for (const auto& n : nics) c.nic_rate_source += (c.nic_rate_source.empty() ? "" : " + ") + n.source;
    } else {
      c.nic_rate_source = rate.error().message;
      std::fprintf(stderr, "railkit: warning: --expect-line-rate: %s; pass --nic-gbps\n", c.nic_rate_source.c_str());
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

Result<bench::BenchConfig> makeConfig(const BenchFlags& f, const Environment& env) {
  // Every flag is checked before any is used: a NaN timeout must not reach
  // the conversions below (UBSan: nan outside the range of long).
  auto launch = bench::resolveLaunch(f, env, bench::mpiBootstrapBuiltIn());
  if (!launch) return tl::unexpected(launch.error());
  if (auto s = bench::validateBenchFlags(f, *launch, bench::physicalMemoryBytes()); !s) return tl::unexpected(s.error());
  bench::BenchConfig c;
  c.op = f.op;
  auto minb = bench::parseSize(f.min_bytes);
  auto maxb = bench::parseSize(f.max_bytes);
  auto factor = parseUint(f.factor);
  auto step = bench::parseSize(f.step);
  if (!minb) return tl::unexpected(minb.error().withContext("-b"));
  if (!maxb) return tl::unexpected(maxb.error().withContext("-e"));
  if (!step) return tl::unexpected(step.error().withContext("-i"));
  if (!factor) return makeError(ErrorCode::kUsage, "-f: expected an integer factor, found '" + f.factor + "'");
  if (*minb > *maxb && f.op != "p2p" && f.op != "pairs") return makeError(ErrorCode::kUsage, "-b is larger than -e");
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
  auto type = bench::dataTypeFromName(f.type);
  if (!type) return makeError(ErrorCode::kUsage, "-d: unknown type '" + f.type + "' (int8 uint8 int32 uint32 int64 uint64 float double)");
  auto redop = bench::reduceOpFromName(f.redop);
  if (!redop) return makeError(ErrorCode::kUsage, "-o: unknown op '" + f.redop + "' (sum prod min max)");
  c.sweep.type = *type;
  c.sweep.op = *redop;
  c.backend = f.backend;
  c.expect_busbw = f.expect_busbw;
  if (f.expect_line_rate_set) {
    auto fraction = parseLineRateFraction(f.expect_line_rate);
    if (!fraction) return tl::unexpected(fraction.error());
    c.expect_line_rate = *fraction;
  }
  c.nic_gbps = f.nic_gbps;
  c.pairs_one_way = f.one_way;

  auto& b = c.bootstrap_options;
  b.timeout = std::chrono::milliseconds(static_cast<long>(f.bootstrap_timeout * 1000));
  auto& t = c.transport_options;
  t.stall_timeout = std::chrono::milliseconds(static_cast<long>(f.stall_timeout * 1000));
  t.connections_per_peer = f.connections;
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
  // The nccl backend picks one GPU per rank by its local rank.
  for (const char* key : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}) {
    if (auto v = lookup(env, key)) t.env.push_back(std::string(key) + "=" + *v);
  }

  auto token = bench::resolveJobToken(f, env);
  if (!token) return tl::unexpected(token.error());
  b.job_token = *token;
  c.bootstrap = launch->bootstrap;
  b.kind = launch->bootstrap == "local" ? "local" : "env";
  b.rank = launch->rank;
  b.size = launch->size;
  b.master_addr = launch->master_addr;
  b.master_port = launch->master_port;

  auto all = bench::listInterfaces();
  std::vector<std::string> data_names;  // every data NIC of this node
  if (f.local > 0) {
    b.control_address = "127.0.0.1";
    c.control_interface = "lo";
    t.data_interface = "lo";
    t.data_address = "127.0.0.1";
  } else {
    Result<bench::NetInterface> ctrl = f.ctrl_if.empty()
                                           ? (b.master_addr.empty() ? bench::selectInterface(all, "^lo", "control")
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
      std::fprintf(stderr, "railkit: warning: no --data-if or NCCL_SOCKET_IFNAME; the data plane shares the control interface %s\n",
                   ctrl->name.c_str());
    } else {
      data = bench::selectInterface(all, data_spec, "data");
      if (!data) return tl::unexpected(data.error());
    }
    t.data_interface = data->name;
    t.data_address = data->address;
    if (!data_spec.empty()) data_names = bench::selectedNames(all, data_spec);
  }
  if (data_names.empty()) data_names.push_back(t.data_interface);
  if (f.backend == "ucx") t.data_rdma_ports = bench::rdmaPortsBehind(FileRoot("/"), t.data_interface);
  applyDataNics(f, env, data_names, c);
  b.job_id = f.job_id;
  if (b.job_id.empty()) b.job_id = lookup(env, "RAILKIT_JOB_ID").value_or("");
  if (b.job_id.empty()) b.job_id = bench::defaultJobId(b.master_addr, b.master_port, b.size);
  return c;
}

// Runs one rank and turns its outcome into an exit status.
int runRank(const bench::BenchConfig& config, const OutputOptions& output) {
  bench::BenchConfig c = config;
  c.print_text = !output.json;
  auto outcome = bench::runBench(c, std::cout);
  std::cout.flush();
  if (!outcome) {
    return reportError(outcome.error().withContext("rank " + std::to_string(c.bootstrap_options.rank)));
  }
  if (outcome->is_root) {
    if (auto s = emitOutput(output, outcome->document, [] {}); !s) return reportError(s.error());
    for (const auto& line : outcome->failures) std::fprintf(stderr, "railkit: %s\n", line.c_str());
  }
  return outcome->failures.empty() ? kExitOk : kExitFindings;
}

// The nccl library named by --nccl-lib (RAILKIT_NCCL_LIB in the backend's env).
Status probeNcclOnce(const bench::BenchConfig& c) {
  std::string dir;
  for (const auto& kv : c.transport_options.env) {
    if (kv.rfind("RAILKIT_NCCL_LIB=", 0) == 0) dir = kv.substr(17);
  }
  return bench::probeNcclInChild(dir, c.bootstrap_options.size);
}

constexpr bench::SuperviseStatuses kRankStatuses{kExitOk, kExitUsage, kExitIncomplete};

int runLocal(bench::BenchConfig c, const OutputOptions& output) {
  if (c.backend == "nccl") {
    if (auto s = probeNcclOnce(c); !s) return reportError(s.error());
  }
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
    return runRank(c, output);
  });
  bench::closeFd(*listener);
  if (!children) return reportError(children.error());
  return bench::superviseRanks(*children, kRankStatuses);
}

// Ranks rank .. rank+G-1 of an env-bootstrap job on this node
// (--nproc-per-node G, as torchrun's): each a child with its LOCAL_RANK,
// supervised like --local's.
int runNodeRanks(const bench::BenchConfig& c, int count, const OutputOptions& output) {
  if (c.backend == "nccl") {
    if (auto s = probeNcclOnce(c); !s) return reportError(s.error());
  }
  auto children = bench::forkRanks(count, [&](int i) {
    bench::BenchConfig mine = c;
    mine.bootstrap_options.rank += i;
    // The nccl backend picks its GPU by local rank.
    auto& env = mine.transport_options.env;
    env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& kv) { return kv.rfind("LOCAL_RANK=", 0) == 0; }),
              env.end());
    env.push_back("LOCAL_RANK=" + std::to_string(i));
    return runRank(mine, output);
  });
  if (!children) return reportError(children.error());
  return bench::superviseRanks(*children, kRankStatuses);
}

}  // namespace

void registerBench(CLI::App& app, CommandContext& context) {
  auto* cmd = app.add_subcommand("bench", "Data-plane test: nccl-tests style collectives over tcp/ucx/nccl");
  auto cli = std::make_shared<BenchCli>();
  BenchFlags* f = &cli->flags;
  cmd->add_option("op", f->op, "all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv, all, p2p or pairs")
      ->required();
  cmd->add_option("-b,--minbytes", f->min_bytes, "smallest size (K/M/G suffixes)")->capture_default_str();
  cmd->add_option("-e,--maxbytes", f->max_bytes, "largest size")->capture_default_str();
  cmd->add_option("-f,--stepfactor", f->factor, "multiply the size by this each step")->capture_default_str();
  cmd->add_option("-i,--stepbytes", f->step, "add this many bytes each step (instead of -f)");
  cmd->add_option("-n,--iters", f->iters, "timed iterations")->capture_default_str();
  cmd->add_option("-w,--warmup_iters", f->warmup, "warm-up iterations")->capture_default_str();
  cmd->add_option("-c,--check", f->check, "check results (0/1)")->capture_default_str();
  cmd->add_option("-o,--op", f->redop, "reduction")
      ->capture_default_str()
      ->check(CLI::IsMember({"sum", "prod", "min", "max"}));
  cmd->add_option("-d,--datatype", f->type, "element type")
      ->capture_default_str()
      ->check(CLI::IsMember({"int8", "uint8", "int32", "uint32", "int64", "uint64", "float", "double"}));
  cmd->add_option("-r,--root", f->root, "root rank of broadcast/reduce")->capture_default_str();
  cmd->add_option("-a,--average", f->average, "time across ranks: 0 rank 0, 1 mean, 2 min, 3 max")->capture_default_str();
  cmd->add_option("--backend", f->backend, "data-plane transport")
      ->capture_default_str()
      ->check(CLI::IsMember({"tcp", "ucx", "nccl"}));
  cmd->add_option("--data-if", f->data_if, "data interface (NCCL_SOCKET_IFNAME syntax)");
  cmd->add_option("--ctrl-if", f->ctrl_if, "control interface (NCCL_SOCKET_IFNAME syntax)");
  cmd->add_option("--local", f->local, "fork N ranks on this host over lo")->check(CLI::Range(1, 64));
  cmd->add_option("--nproc-per-node", f->nproc_per_node,
                  "fork G ranks on this node; RANK/WORLD_SIZE (or PET_NODE_RANK/PET_NNODES) then count nodes, as with "
                  "torchrun --nproc-per-node")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--job-id", f->job_id, "job id checked at the rendezvous (default RAILKIT_JOB_ID or derived)");
  cmd->add_option("--job-token", f->job_token,
                  "shared secret every rank must hold; hellos carry an HMAC of it (default RAILKIT_JOB_TOKEN; "
                  "visible in ps: prefer the variable or --job-token-file)");
  cmd->add_option("--job-token-file", f->job_token_file, "read the job token from this file (e.g. a mounted Secret)");
  cmd->add_option("--bootstrap-timeout", f->bootstrap_timeout, "seconds to wait for every rank")->capture_default_str();
  cmd->add_option("--stall-timeout", f->stall_timeout, "seconds without progress before a peer is declared lost")
      ->capture_default_str();
  cmd->add_option("--connections", f->connections, "tcp streams per peer")->capture_default_str();
  cmd->add_option("--expect-busbw", f->expect_busbw, "exit 1 when busbw at the largest size is below this (GB/s)");
  // A flag with an optional =F, as in logs: a separate word after it stays
  // an argument of its own (never taken for F).
  cmd->add_flag("--expect-line-rate{0.8}", f->expect_line_rate, "exit 1 below F x the NIC-bound busbw (default F=0.8)")
      ->type_name("F");
  cmd->add_option("--nic-gbps", f->nic_gbps, "per-node data NIC rate in Gb/s for --expect-line-rate");
  cmd->add_flag("--one-way", f->one_way, "pairs: measure a -> b only (default: both directions at once)");
  cmd->add_option("--nccl-lib", f->nccl_lib, "directory holding libnccl.so.2 / libcudart (nccl backend)");
  addOutputFlags(*cmd, cli->output);
  cmd->callback([&context, cli, cmd] {
    cli->flags.expect_line_rate_set = cmd->count("--expect-line-rate") > 0;
    context.action = [cli, &context] {
      const BenchFlags* f = &cli->flags;
      auto config = makeConfig(*f, context.env);
      if (!config) return reportError(config.error());
      if (f->local > 0) return runLocal(*config, cli->output);
      if (f->nproc_per_node > 1) return runNodeRanks(*config, f->nproc_per_node, cli->output);
      return runRank(*config, cli->output);
    };
  });
}

}  // namespace railkit::cli
