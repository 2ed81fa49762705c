#include "bench/bench_flags.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "bench/bench_options.h"
#include "bench/collectives/collective.h"
#include "bench/job_token.h"
#include "bench/rendezvous.h"
#include "bench/sweep.h"
#include "core/input_file.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

Error usage(const std::string& message) {
  return Error{ErrorCode::kUsage, message};
}

// A value as the user wrote it, short and printable, for a message.
std::string quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value.substr(0, 40)) out.push_back(c >= ' ' && c < 0x7f ? c : '?');
  if (value.size() > 40) out += "...";
  return out + "'";
}

// An integer environment variable in [lo, hi]; nullopt when unset.
Result<std::optional<long long>> envNumber(const Environment& env, const char* name, long long lo,
                                           long long hi, const char* what) {
  auto v = lookup(env, name);
  if (!v) return std::optional<long long>();
  auto n = parseUint(*v);
  if (!n || *n < static_cast<std::uint64_t>(lo) || *n > static_cast<std::uint64_t>(hi)) {
    return tl::unexpected(usage(std::string(name) + "=" + quoted(*v) + ": expected " + what + " (" +
                                std::to_string(lo) + ".." + std::to_string(hi) + ")"));
  }
  return std::optional<long long>(static_cast<long long>(*n));
}

std::string bytesText(long double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0Lf %s" : "%.1Lf %s", bytes, units[u]);
  return buf;
}

Status inRange(bool ok, const std::string& message) {
  if (ok) return okStatus();
  return tl::unexpected(usage(message));
}

// The environment with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT filled
// from their PET_* twins where only the twin is set. Under mpirun the MPI
// variables rule and PET_* is left alone.
Result<Environment> resolvePetEnvironment(const Environment& env, bool mpi) {
  Environment out = env;
  if (mpi) return out;
  static constexpr std::pair<const char*, const char*> kTwins[] = {{"RANK", "PET_NODE_RANK"},
                                                                   {"WORLD_SIZE", "PET_NNODES"},
                                                                   {"MASTER_ADDR", "PET_MASTER_ADDR"},
                                                                   {"MASTER_PORT", "PET_MASTER_PORT"}};
  for (const auto& [plain, pet] : kTwins) {
    auto pet_value = lookup(env, pet);
    if (!pet_value) continue;
    // torchrun accepts an elastic range (PET_NNODES=1:4); a benchmark needs
    // one fixed number of nodes.
    if (std::string_view(plain) != "MASTER_ADDR" && !parseUint(*pet_value)) {
      return tl::unexpected(usage(std::string(pet) + "=" + quoted(*pet_value) + ": expected a whole number"));
    }
    auto plain_value = lookup(env, plain);
    if (!plain_value) {
      out.emplace(plain, *pet_value);
      continue;
    }
    if (*plain_value != *pet_value) {
      return tl::unexpected(usage(std::string(plain) + "=" + quoted(*plain_value) + " and " + pet + "=" +
                                  quoted(*pet_value) +
                                  " disagree: set one of them, or both to the same value"));
    }
  }
  return out;
}

}  // namespace

Result<Launch> resolveLaunch(const BenchFlags& f, const Environment& env, bool mpi_built_in) {
  Launch l;
  if (f.local > 0) {
    l.bootstrap = "local";
    l.size = l.ranks_on_this_host = f.local;
    l.master_addr = "127.0.0.1";
    return l;
  }
  const bool mpi = lookup(env, "OMPI_COMM_WORLD_SIZE") || lookup(env, "PMI_SIZE");
  // Kubeflow Trainer's torch policy (and torchrun's own environment) names
  // the same facts PET_NODE_RANK, PET_NNODES, PET_MASTER_ADDR and
  // PET_MASTER_PORT; they count nodes, and railkit runs one rank per node
  // there. Both spellings may be set; when they disagree, the job would
  // split, so that is refused.
  auto pet = resolvePetEnvironment(env, mpi);
  if (!pet) return tl::unexpected(pet.error());
  const Environment& boot = *pet;
  const char* rank_var =
      mpi ? (lookup(env, "OMPI_COMM_WORLD_RANK") ? "OMPI_COMM_WORLD_RANK" : "PMI_RANK") : "RANK";
  const char* size_var =
      mpi ? (lookup(env, "OMPI_COMM_WORLD_SIZE") ? "OMPI_COMM_WORLD_SIZE" : "PMI_SIZE") : "WORLD_SIZE";
  auto size = envNumber(boot, size_var, 1, kMaxWorldSize, "a world size");
  if (!size) return tl::unexpected(size.error());
  auto rank = envNumber(boot, rank_var, 0, kMaxWorldSize - 1, "a rank number");
  if (!rank) return tl::unexpected(rank.error());
  // Port 0 (the kernel picks one) can only work for a job of one rank.
  bool single = size->value_or(0) == 1;
  auto port = envNumber(boot, "MASTER_PORT", single ? 0 : 1, 65535, "a TCP port");
  if (!port) return tl::unexpected(port.error());
  auto addr = lookup(boot, "MASTER_ADDR");
  if (mpi && f.nproc_per_node > 0) {
    return tl::unexpected(
        usage("--nproc-per-node: mpirun already starts every rank (use its -np and --map-by)"));
  }
  if (mpi) {
    l.bootstrap = mpi_built_in ? "mpi" : "env";
    if (!mpi_built_in && !addr) {
      return tl::unexpected(
          usage("started by mpirun, but this railkit was built without MPI: set MASTER_ADDR (and "
                "MASTER_PORT) to rank 0's "
                "control address, e.g. mpirun -x MASTER_ADDR=HOST ..., so the ranks meet at its rendezvous"));
    }
    l.rank = static_cast<int>(rank->value_or(0));
    l.size = static_cast<int>(size->value_or(1));
    auto local = envNumber(env, "OMPI_COMM_WORLD_LOCAL_SIZE", 1, kMaxWorldSize, "a rank count");
    if (local && *local) l.ranks_on_this_host = static_cast<int>(**local);
  } else {
    if (!*rank || !*size || !addr) {
      return tl::unexpected(
          usage("no launcher found: set RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (or Trainer's "
                "PET_NODE_RANK, PET_NNODES, "
                "PET_MASTER_ADDR, PET_MASTER_PORT), run under mpirun, or use --local N"));
    }
    l.rank = static_cast<int>(**rank);
    l.size = static_cast<int>(**size);
    auto local = envNumber(env, "LOCAL_WORLD_SIZE", 1, kMaxWorldSize, "a rank count");
    if (local && *local) l.ranks_on_this_host = static_cast<int>(**local);
  }
  if (l.rank >= l.size) {
    return tl::unexpected(usage(std::string(rank_var) + "=" + std::to_string(l.rank) + " is not below " +
                                size_var + "=" + std::to_string(l.size)));
  }
  if (f.nproc_per_node > 0) {
    // RANK and WORLD_SIZE (or PET_NODE_RANK and PET_NNODES) count nodes here.
    if (static_cast<long long>(l.size) * f.nproc_per_node > kMaxWorldSize) {
      return tl::unexpected(usage(std::string(size_var) + "=" + std::to_string(l.size) +
                                  " nodes x --nproc-per-node " + std::to_string(f.nproc_per_node) +
                                  " is more than " + std::to_string(kMaxWorldSize) + " ranks"));
    }
    l.rank *= f.nproc_per_node;
    l.size *= f.nproc_per_node;
    l.ranks_on_this_host = l.ranks_to_fork = f.nproc_per_node;
  }
  if (addr && addr->empty()) return tl::unexpected(usage("MASTER_ADDR is empty"));
  l.master_addr = addr.value_or("");
  l.master_port = static_cast<int>(port->value_or(29500));
  return l;
}

long double bufferBytesPerRank(const std::string& op, std::uint64_t max_bytes) {
  long double b = static_cast<long double>(max_bytes);
  if (op == "p2p") return std::max<long double>(b, 2);
  // pairs: a send and a receive buffer; a collective out of place: a send
  // and a receive buffer, neither larger than the row's size.
  return 2 * std::max<long double>(b, 1);
}

namespace {

// The op is a collective, all, p2p or pairs; -r names a rank of this job.
Status checkOpAndRoot(const BenchFlags& f, const Launch& launch) {
  if (f.op != "all" && f.op != "p2p" && f.op != "pairs" && findCollective(f.op) == nullptr) {
    std::string known;
    for (const auto& c : collectives()) known += std::string(c.name) + " ";
    return tl::unexpected(usage("unknown op " + quoted(f.op) + " (" + known + "all p2p pairs)"));
  }
  return inRange(f.root >= 0 && f.root < launch.size,
                 "-r/--root: rank " + std::to_string(f.root) + " is not in this job of " +
                     std::to_string(launch.size) + " rank(s) (0.." + std::to_string(launch.size - 1) + ")");
}

// Flags that exclude each other, and the job id the rendezvous compares.
Status checkCombinations(const BenchFlags& f) {
  if (f.local > 0 && f.nproc_per_node > 0) {
    return tl::unexpected(
        usage("--nproc-per-node cannot be used with --local (--local N already forks every rank)"));
  }
  if (f.local > 0 && (!f.data_if.empty() || !f.ctrl_if.empty())) {
    return tl::unexpected(usage(std::string(f.data_if.empty() ? "--ctrl-if" : "--data-if") +
                                " cannot be used with --local (its ranks always talk over lo)"));
  }
  if (f.job_id.size() > kMaxJobIdChars) {
    return tl::unexpected(usage("--job-id: longer than " + std::to_string(kMaxJobIdChars) + " characters"));
  }
  for (unsigned char c : f.job_id) {
    if (c <= ' ' || c >= 0x7f)
      return tl::unexpected(usage("--job-id: holds a space or a non-printable character"));
  }
  return okStatus();
}

// Every rank on this host allocates its buffers for -e: they must fit.
Status checkMemory(const BenchFlags& f, const Launch& launch, std::uint64_t memory_bytes) {
  auto max_bytes = parseSize(f.max_bytes);
  if (!max_bytes || memory_bytes == 0) return okStatus();
  int ranks = std::max(1, launch.ranks_on_this_host);
  long double need = bufferBytesPerRank(f.op, *max_bytes) * ranks;
  if (need <= static_cast<long double>(memory_bytes)) return okStatus();
  return tl::unexpected(usage("-e " + f.max_bytes + ": " + std::to_string(ranks) +
                              " rank(s) on this host would need about " + bytesText(need) +
                              " of buffers, more than its " +
                              bytesText(static_cast<long double>(memory_bytes)) + " of memory"));
}

}  // namespace

Status validateBenchFlags(const BenchFlags& f, const Launch& launch, std::uint64_t memory_bytes) {
  if (auto s = checkOpAndRoot(f, launch); !s) return s;
  // Each tabled option within its bounds (bench_options.h): the same check
  // the CLI ran while parsing, for callers that fill BenchFlags themselves.
  if (auto s = checkTabledOptions(f); !s) return s;
  if (auto s = checkCombinations(f); !s) return s;
  return checkMemory(f, launch, memory_bytes);
}

std::uint64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

Result<std::string> resolveJobToken(const BenchFlags& f, const Environment& env) {
  if (!f.job_token.empty() && !f.job_token_file.empty()) {
    return tl::unexpected(usage("--job-token and --job-token-file: give one of them"));
  }
  std::string token, source;
  if (!f.job_token.empty()) {
    token = f.job_token;
    source = "--job-token";
  } else if (!f.job_token_file.empty()) {
    auto text = readInputFile(f.job_token_file, {"job token file", 4096, false});
    if (!text) return tl::unexpected(text.error().withContext("--job-token-file"));
    token = *text;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    source = "--job-token-file " + f.job_token_file;
  } else if (auto v = lookup(env, "RAILKIT_JOB_TOKEN")) {
    token = *v;
    source = "RAILKIT_JOB_TOKEN";
  } else {
    return std::string();
  }
  if (auto s = checkJobToken(token, source); !s) return tl::unexpected(s.error());
  return token;
}

}  // namespace railkit::bench
