#include "bench/bench_options.h"

#include <cmath>
#include <cstdio>
#include <type_traits>

#include "bench/collectives/collective.h"
#include "bench/datatype.h"
#include "bench/rendezvous.h"
#include "bench/sweep.h"
#include "bench/transport.h"
#include "core/collective_factors.h"
#include "core/strings.h"

namespace railkit::bench {
namespace {

// 1000000 as "1000000", not %g's "1e+06"; fractions as %g writes them.
std::string number(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

// 262144 -> "256K": sizes in the units parseSize reads.
std::string sizeText(double bytes) {
  const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && std::fmod(bytes, 1024) == 0 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return number(bytes) + units[u];
}

std::vector<std::string> reduceOpChoices() {
  std::vector<std::string> out;
  for (auto op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax})
    out.emplace_back(reduceOpName(op));
  return out;
}

std::vector<std::string> dataTypeChoices() {
  std::vector<std::string> out;
  for (int t = 0; t <= static_cast<int>(DataType::kDouble); ++t)
    out.emplace_back(dataTypeName(static_cast<DataType>(t)));
  return out;
}

template <class... Bounds>
BenchOption row(const char* names, FlagField field, Bounds... bounds) {
  return optionRow<BenchOption>(names, field, bounds...);
}

// The rows that say how a sweep is sized and timed (nccl-tests' flags).
void addSweepOptions(std::vector<BenchOption>& t) {
  BenchOption o;
  o = row("-b,--minbytes", &BenchFlags::min_bytes, OptionCheck::kSize);
  o.bench_default = "32M", o.validate_default = "1M", o.help = "smallest size (K/M/G suffixes)";
  o.validate_help = "phase 4: smallest size (K/M/G suffixes)";
  o.details = "; powers of 1024";
  t.push_back(o);
  o = row("-e,--maxbytes", &BenchFlags::max_bytes, OptionCheck::kSize);
  o.bench_default = "32M", o.validate_default = "64M", o.help = "largest size",
  o.validate_help = "phase 4: largest size";
  o.details = "; the buffers of every rank on the host must fit in its memory";
  t.push_back(o);
  o = row("-f,--stepfactor", &BenchFlags::factor, OptionCheck::kWhole, 0, 1u << 20);
  o.bench_default = "2", o.validate_default = "4", o.help = "multiply the size by this each step";
  o.validate_help = "phase 4: multiply the size by this each step";
  t.push_back(o);
  o = row("-i,--stepbytes", &BenchFlags::step, OptionCheck::kSize);
  o.bench_default = "0", o.help = "add this many bytes each step (instead of -f)",
  o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("-n,--iters", &BenchFlags::iters, OptionCheck::kWhole, 1, kMaxIters);
  o.unit = "timed iterations", o.bench_default = "20", o.validate_default = "10", o.help = "timed iterations";
  o.validate_help = "phase 4: timed iterations";
  t.push_back(o);
  o = row("-w,--warmup_iters", &BenchFlags::warmup, OptionCheck::kWhole, 0, kMaxIters);
  o.unit = "warm-up iterations", o.bench_default = "5", o.validate_default = "2",
  o.help = "warm-up iterations";
  o.validate_help = "phase 4: warm-up iterations";
  t.push_back(o);
}

// The rows only bench has: what each row computes and how it is reported.
void addRowOptions(std::vector<BenchOption>& t) {
  BenchOption o;
  o = row("-c,--check", &BenchFlags::check, OptionCheck::kWhole, 0, 1);
  o.meaning = "0 or 1", o.bench_default = "1", o.help = "check results (0/1)";
  o.details = "; `#wrong` is `N/A` when off", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("-o,--op", &BenchFlags::redop, OptionCheck::kChoice);
  o.choices = reduceOpChoices(), o.bench_default = "sum", o.help = "reduction", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("-d,--datatype", &BenchFlags::type, OptionCheck::kChoice);
  o.choices = dataTypeChoices(), o.bench_default = "float", o.help = "element type";
  o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("-r,--root", &BenchFlags::root, OptionCheck::kWhole, 0, kMaxWorldSize - 1);
  o.bench_default = "0", o.help = "root rank of broadcast/reduce";
  o.details = "; below the job's rank count", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("-a,--average", &BenchFlags::average, OptionCheck::kWhole, 0, 3);
  o.meaning = "0 (rank 0), 1 (mean), 2 (min) or 3 (max)", o.bench_default = "1";
  o.help = "time across ranks: 0 rank 0, 1 mean, 2 min, 3 max", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
}

// Where the ranks meet and who may join.
void addLaunchOptions(std::vector<BenchOption>& t) {
  BenchOption o;
  o = row("--backend", &BenchFlags::backend, OptionCheck::kChoice);
  o.choices = {std::begin(kBackendNames), std::end(kBackendNames)}, o.bench_default = "tcp";
  o.help = "data-plane transport", o.details = "; ucx and nccl when built in";
  t.push_back(o);
  o = row("--data-if", &BenchFlags::data_if);
  o.help = "data interface (NCCL_SOCKET_IFNAME syntax)";
  o.details =
      " (`eth`, `^docker,lo`, `=net1`); default NCCL_SOCKET_IFNAME, else the control interface with a "
      "warning";
  t.push_back(o);
  o = row("--ctrl-if", &BenchFlags::ctrl_if);
  o.help = "control interface (NCCL_SOCKET_IFNAME syntax)";
  o.details = "; default the interface routing to MASTER_ADDR";
  t.push_back(o);
  o = row("--local", &BenchFlags::local, OptionCheck::kWhole, 1, kMaxRanksPerNode);
  o.help = "fork N ranks on this host over lo";
  t.push_back(o);
  o = row("--nproc-per-node", &BenchFlags::nproc_per_node, OptionCheck::kWhole, 1, kMaxRanksPerNode);
  o.help =
      "fork G ranks on this node; RANK/WORLD_SIZE (or PET_NODE_RANK/PET_NNODES) then count nodes, as with "
      "torchrun --nproc-per-node";
  o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("--job-id", &BenchFlags::job_id);
  o.help = "job id checked at the rendezvous (default RAILKIT_JOB_ID or derived)";
  o.details = " from MASTER_ADDR, MASTER_PORT, WORLD_SIZE; printable, no spaces";
  t.push_back(o);
  o = row("--job-token", &BenchFlags::job_token);
  o.help =
      "shared secret every rank must hold; hellos carry an HMAC of it (default RAILKIT_JOB_TOKEN; visible in "
      "ps: "
      "prefer the variable or --job-token-file)";
  o.details = "; 16..1024 printable characters, the same on every rank. `--local` makes a random one";
  t.push_back(o);
  o = row("--job-token-file", &BenchFlags::job_token_file);
  o.help = "read the job token from this file (e.g. a mounted Secret)";
  t.push_back(o);
}

// How long a rank waits and how the tcp transport moves data.
void addTransportOptions(std::vector<BenchOption>& t) {
  BenchOption o;
  o = row("--bootstrap-timeout", &BenchFlags::bootstrap_timeout, OptionCheck::kNumber, 0, kMaxTimeoutSeconds);
  o.unit = "seconds", o.bench_default = "300", o.help = "seconds to wait for every rank";
  t.push_back(o);
  o = row("--stall-timeout", &BenchFlags::stall_timeout, OptionCheck::kNumber, 0, kMaxTimeoutSeconds, true);
  o.unit = "seconds", o.bench_default = "30",
  o.help = "seconds without progress before a peer is declared lost";
  o.details = "; also TCP_USER_TIMEOUT";
  t.push_back(o);
  o = row("--connections", &BenchFlags::connections, OptionCheck::kWhole, 1, kMaxConnectionsPerPeer);
  o.unit = "streams per peer", o.bench_default = "4", o.help = "tcp streams per peer";
  t.push_back(o);
  o = row("--socket-buffer", &BenchFlags::socket_buffer, OptionCheck::kSize, 0,
          static_cast<double>(kMaxSocketBufferBytes));
  o.meaning = "0 (kernel autotuning) or a size up to 256M", o.bench_default = "256K";
  o.help = "tcp: SO_SNDBUF/SO_RCVBUF per stream (K/M suffixes; 0 = kernel autotuning)";
  o.details = "; the kernel doubles it and caps it at `net.core.[rw]mem_max` (see Performance for why small)";
  t.push_back(o);
}

// What makes a run fail, and where the run-time libraries are.
void addVerdictOptions(std::vector<BenchOption>& t) {
  static const std::string line_rate = number(kDefaultLineRateFraction);
  static const std::string line_rate_help =
      "exit 1 below F x the NIC-bound busbw (default F=" + line_rate + ")";
  BenchOption o;
  o = row("--expect-busbw", &BenchFlags::expect_busbw, OptionCheck::kNumber, 0);
  o.unit = "GB/s", o.help = "exit 1 when busbw at the largest size is below this (GB/s)";
  o.details = " (in-place)", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
  o = row("--expect-line-rate", &BenchFlags::expect_line_rate, OptionCheck::kSwitchWithValue);
  o.switch_value = line_rate.c_str(), o.help = line_rate_help.c_str();
  o.details = " (see \"Line rate\" in docs/bench.md)";
  t.push_back(o);
  o = row("--nic-gbps", &BenchFlags::nic_gbps, OptionCheck::kNumber, 0, kUnbounded, true);
  o.unit = "Gb/s", o.help = "per-node data NIC rate in Gb/s for --expect-line-rate";
  o.details = " (instead of reading it from sysfs)";
  t.push_back(o);
  o = row("--nccl-lib", &BenchFlags::nccl_lib);
  o.help = "directory holding libnccl.so.2 / libcudart (nccl backend)";
  o.details = "; a pip site-packages directory works";
  t.push_back(o);
  o = row("--ucx-lib", &BenchFlags::ucx_lib);
  o.help =
      "directory holding libucp.so.0 / libucs.so.0, searched before the loader path (ucx backend; default "
      "RAILKIT_UCX_LIB)";
  t.push_back(o);
  o = row("--mpi-lib", &BenchFlags::mpi_lib);
  o.help =
      "directory holding Open MPI's libmpi.so.40, searched before the loader path (under mpirun; default "
      "RAILKIT_MPI_LIB)";
  t.push_back(o);
  o = row("--one-way", &BenchFlags::one_way, OptionCheck::kSwitch);
  o.help = "pairs: measure a -> b only (default: both directions at once)", o.use = OptionUse::kBenchOnly;
  t.push_back(o);
}

std::vector<BenchOption> makeTable() {
  std::vector<BenchOption> t;
  addSweepOptions(t);
  addRowOptions(t);
  addLaunchOptions(t);
  addTransportOptions(t);
  addVerdictOptions(t);
  return t;
}

std::string found(const OptionSpec& o, const std::string& text) {
  return "expected " + expectedText(o) + ", found '" + text.substr(0, 40) + (text.size() > 40 ? "...'" : "'");
}

// `value` is the number when the option is numeric and the text read as one.
std::string problem(const OptionSpec& o, std::optional<double> value, const std::string& text) {
  switch (o.check) {
    case OptionCheck::kWhole:
      if (!value || *value != std::floor(*value) || *value < o.lo || *value > o.hi) return found(o, text);
      return "";
    case OptionCheck::kNumber:
      if (!value || !std::isfinite(*value) || (o.lo_open ? *value <= o.lo : *value < o.lo) || *value > o.hi)
        return found(o, text);
      return "";
    case OptionCheck::kSize: {
      // parseSize, the fuzzed parser, not CLI::AsSizeValue: that one reads
      // "1.5M" and "1KiB", which nccl-tests does not.
      auto size = parseSize(text);
      if (!size && *o.meaning == '\0') return size.error().message;
      if (!size || static_cast<double>(*size) < o.lo || static_cast<double>(*size) > o.hi)
        return found(o, text);
      return "";
    }
    case OptionCheck::kChoice:
      for (const auto& c : o.choices)
        if (c == text) return "";
      return found(o, text);
    default: return "";
  }
}

}  // namespace

const std::vector<BenchOption>& benchOptions() {
  static const std::vector<BenchOption> table = makeTable();
  return table;
}

std::vector<const BenchOption*> optionsOf(Command command) {
  std::vector<const BenchOption*> out;
  for (const auto& o : benchOptions())
    if (command == Command::kBench || o.use == OptionUse::kBoth) out.push_back(&o);
  return out;
}

std::string optionLabel(const OptionSpec& option) {
  std::string label = option.names;
  for (auto& c : label)
    if (c == ',') c = '/';
  return label;
}

std::string expectedText(const OptionSpec& o) {
  if (*o.meaning != '\0') return o.meaning;
  std::string unit = o.unit;
  switch (o.check) {
    case OptionCheck::kWhole:
      if (unit.empty()) return "a whole number from " + number(o.lo) + " to " + number(o.hi);
      return number(o.lo) + " to " + number(o.hi) + " " + unit;
    case OptionCheck::kNumber: {
      if (unit.empty()) unit = "a number";
      std::string low =
          o.lo_open ? " above " + number(o.lo) : (std::isinf(o.hi) ? " of " : " from ") + number(o.lo);
      if (std::isinf(o.hi)) return unit + low + (o.lo_open ? "" : " or more");
      return unit + low + (o.lo_open ? " up to " : " to ") + number(o.hi);
    }
    case OptionCheck::kSize:
      if (std::isinf(o.hi)) return "a size (8, 128K, 1M, 8G; K = 1024)";
      return "a size up to " + sizeText(o.hi);
    case OptionCheck::kChoice: {
      std::string out = "one of";
      for (const auto& c : o.choices) out += " " + c;
      return out;
    }
    default: return "";
  }
}

std::string checkOptionText(const OptionSpec& option, const std::string& text) {
  std::optional<double> value;
  if (option.check == OptionCheck::kWhole) {
    if (auto v = parseInt(text)) value = static_cast<double>(*v);
  } else if (option.check == OptionCheck::kNumber) {
    value = parseDouble(text);
  }
  return problem(option, value, text);
}

BenchFlags defaultFlags(Command command) {
  BenchFlags flags;
  if (command == Command::kBench) return flags;
  for (const auto* o : optionsOf(command))
    if (o->validate_default) setFromText(flags, o->field, o->validate_default);
  return flags;
}

BenchFlags::BenchFlags() {
  for (const auto& o : benchOptions())
    if (o.bench_default) setFromText(*this, o.field, o.bench_default);
}

std::string defaultText(const OptionSpec& option, Command command) {
  if (command == Command::kValidate && option.validate_default) return option.validate_default;
  return option.bench_default ? option.bench_default : "";
}

Status checkTabledOptions(const BenchFlags& flags) {
  for (const auto& o : benchOptions()) {
    std::string message = std::visit(
        [&](auto member) -> std::string {
          const auto& v = flags.*member;
          using T = std::remove_cv_t<std::remove_reference_t<decltype(v)>>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (v.empty() && !o.bench_default) return "";
            return checkOptionText(o, v);
          } else if constexpr (std::is_same_v<T, int>) {
            if (v == 0 && !o.bench_default) return "";
            return problem(o, v, std::to_string(v));
          } else if constexpr (std::is_same_v<T, double>) {
            return problem(o, v, number(v));
          } else if constexpr (std::is_same_v<T, std::optional<double>>) {
            return v ? problem(o, *v, number(*v)) : "";
          } else {
            return "";
          }
        },
        o.field);
    if (!message.empty()) return makeError(ErrorCode::kUsage, optionLabel(o) + ": " + message);
  }
  return okStatus();
}

}  // namespace railkit::bench
