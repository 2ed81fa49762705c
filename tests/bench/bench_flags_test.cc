// Every bad flag or launcher variable is one kUsage error before any rank runs.
#include "bench/bench_flags.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <variant>

#include "bench/bench_options.h"

namespace railkit::bench {
namespace {

constexpr std::uint64_t kMemory = 16ull << 30;

BenchFlags local(int n = 2) {
  BenchFlags f;
  f.op = "all_reduce";
  f.local = n;
  return f;
}

Launch launchOf(const BenchFlags& f) {
  return *resolveLaunch(f, {}, false);
}

// The flags after `change` are refused with a kUsage message holding `want`.
void expectRefused(const std::function<void(BenchFlags&)>& change, const std::string& want) {
  BenchFlags f = local();
  change(f);
  auto s = validateBenchFlags(f, launchOf(f), kMemory);
  ASSERT_FALSE(s.has_value()) << want;
  EXPECT_EQ(s.error().code, ErrorCode::kUsage);
  EXPECT_NE(s.error().message.find(want), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
}

TEST(BenchFlags, DefaultsAreValid) {
  BenchFlags f = local();
  EXPECT_TRUE(validateBenchFlags(f, launchOf(f), kMemory).has_value());
  f.op = "pairs";
  EXPECT_TRUE(validateBenchFlags(f, launchOf(f), kMemory).has_value());
}

TEST(BenchFlags, SocketBufferTakesZeroOrASize) {
  for (const char* v : {"0", "64K", "8M", "256M"}) {
    BenchFlags f = local();
    f.socket_buffer = v;
    EXPECT_TRUE(validateBenchFlags(f, launchOf(f), kMemory).has_value()) << v;
  }
}

TEST(BenchFlags, RefusesEachBadFlag) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expectRefused([](BenchFlags& f) { f.max_bytes = "16T"; }, "-e 16T");
  expectRefused([](BenchFlags& f) { f.root = 2; }, "-r/--root: rank 2");
  expectRefused([](BenchFlags& f) { f.root = -1; }, "-r/--root");
  expectRefused([](BenchFlags& f) { f.stall_timeout = 0; }, "--stall-timeout");
  expectRefused([](BenchFlags& f) { f.stall_timeout = -3; }, "--stall-timeout");
  expectRefused([](BenchFlags& f) { f.stall_timeout = 1e12; }, "--stall-timeout");
  expectRefused([nan](BenchFlags& f) { f.stall_timeout = nan; }, "--stall-timeout");
  expectRefused([](BenchFlags& f) { f.bootstrap_timeout = -1; }, "--bootstrap-timeout");
  expectRefused([nan](BenchFlags& f) { f.bootstrap_timeout = nan; }, "--bootstrap-timeout");
  expectRefused([](BenchFlags& f) { f.bootstrap_timeout = 1e9; }, "--bootstrap-timeout");
  expectRefused([](BenchFlags& f) { f.iters = 0; }, "-n/--iters");
  expectRefused([](BenchFlags& f) { f.iters = -4; }, "-n/--iters");
  expectRefused([](BenchFlags& f) { f.warmup = -1; }, "-w/--warmup_iters");
  expectRefused([](BenchFlags& f) { f.average = 9; }, "-a/--average");
  expectRefused([](BenchFlags& f) { f.check = 2; }, "-c/--check");
  expectRefused([](BenchFlags& f) { f.connections = -1; }, "--connections");
  expectRefused([](BenchFlags& f) { f.connections = 0; }, "--connections");
  expectRefused([](BenchFlags& f) { f.connections = 100000; }, "--connections");
  expectRefused([](BenchFlags& f) { f.socket_buffer = "lots"; }, "--socket-buffer");
  expectRefused([](BenchFlags& f) { f.socket_buffer = "1G"; }, "--socket-buffer");
  expectRefused([](BenchFlags& f) { f.expect_busbw = -1; }, "--expect-busbw");
  expectRefused([nan](BenchFlags& f) { f.expect_busbw = nan; }, "--expect-busbw");
  expectRefused([](BenchFlags& f) { f.nic_gbps = 0; }, "--nic-gbps");
  expectRefused([](BenchFlags& f) { f.data_if = "eth0"; }, "--data-if cannot be used with --local");
  expectRefused([](BenchFlags& f) { f.ctrl_if = "eth0"; }, "--ctrl-if cannot be used with --local");
  expectRefused([](BenchFlags& f) { f.op = "bogus"; }, "unknown op 'bogus'");
  expectRefused([](BenchFlags& f) { f.backend = "carrier-pigeon"; }, "--backend");
  expectRefused([](BenchFlags& f) { f.job_id = "a b"; }, "--job-id");
  expectRefused([](BenchFlags& f) { f.type = "half"; }, "-d/--datatype: expected one of int8");
  expectRefused([](BenchFlags& f) { f.redop = "avg"; }, "-o/--op: expected one of sum prod min max");
  expectRefused([](BenchFlags& f) { f.local = 65; }, "--local: expected a whole number from 1 to 64");
  expectRefused([](BenchFlags& f) { f.factor = "two"; }, "-f/--stepfactor");
}

// The table's rows: each default passes its own check, for bench and for
// validate, and each CLI spelling is declared once.
TEST(BenchOptions, DefaultsPassTheirOwnChecks) {
  std::set<std::string> names;
  for (const auto& o : benchOptions()) {
    EXPECT_TRUE(names.insert(o.names).second) << o.names;
    for (Command c : {Command::kBench, Command::kValidate}) {
      std::string d = defaultText(o, c);
      if (!d.empty()) {
        EXPECT_EQ(checkOptionText(o, d), "") << o.names << " default " << d;
      }
    }
    if (o.use == OptionUse::kBenchOnly) {
      EXPECT_EQ(o.validate_default, nullptr) << o.names;
    }
  }
  EXPECT_TRUE(validateBenchFlags(local(), launchOf(local()), kMemory).has_value());
  BenchFlags v = defaultFlags(Command::kValidate);
  v.op = "all_reduce";
  v.local = 2;
  EXPECT_TRUE(validateBenchFlags(v, launchOf(v), kMemory).has_value());
  // validate's phase 4 sweeps a range of sizes where bench's default is one.
  EXPECT_NE(v.min_bytes, v.max_bytes);
  EXPECT_EQ(local().min_bytes, local().max_bytes);
}

// nccl-tests command lines as public repositories run them: every flag letter
// railkit shares with nccl-tests takes the value as written there, and a
// type railkit lacks (-d half) is refused naming the ones it has. -g, -t, -z
// and -R are nccl-tests' own (GPUs per thread, threads, blocking, buffer
// registration): railkit runs one rank per GPU and has none of them.
TEST(BenchOptions, RealNcclTestsCommandLines) {
  struct Case {
    const char* source;
    const char* args;
  };
  const Case cases[] = {
      {"https://github.com/aws/deep-learning-containers/blob/HEAD/test/sagemaker_tests/healthcheck_tests/"
       "nccl_test.sh",
       "-b 8 -e 128M -f 2 -g 8"},
      {"https://github.com/aistabci/abci2.0benchmark/blob/HEAD/allreduce/nccl_anode.sh",
       "-t 1 -g 1 -b 4 -e 32M -f 2 -n 100"},
      {"https://github.com/FlagOpen/FlagPerf/blob/HEAD/base/toolkits/interconnect-MPI_intraserver/denglin/"
       "GS40/"
       "main.sh",
       "-t 1 -g 1 -b 2M -e 32M -d float -o sum"},
      {"https://github.com/sfantao/lumi-ai-workflow-tests/blob/HEAD/rccltest/rocm701.runfolder/run.sh",
       "-z 1 -b 2M -e 2048M -f 2 -g 1 -t 1 -R 1 -n 80 -w 5 -d half"},
  };
  auto rowOf = [](const std::string& letter) -> const BenchOption* {
    for (const auto& o : benchOptions())
      if (std::string(o.names).rfind(letter + ",", 0) == 0) return &o;
    return nullptr;
  };
  int checked = 0;
  for (const auto& c : cases) {
    std::istringstream words(c.args);
    for (std::string flag, value; words >> flag >> value;) {
      const BenchOption* row = rowOf(flag);
      if (!row) {
        EXPECT_NE(std::string("-g -t -z -R").find(flag), std::string::npos) << c.source << ": " << flag;
        continue;
      }
      ++checked;
      std::string problem = checkOptionText(*row, value);
      if (flag == "-d" && value == "half") {
        EXPECT_NE(problem.find("expected one of int8 uint8 int32 uint32 int64 uint64 float double"),
                  std::string::npos)
            << problem;
      } else {
        EXPECT_EQ(problem, "") << c.source << ": " << flag << " " << value;
      }
    }
  }
  EXPECT_EQ(checked, 17);
}

// Every bounded whole-number or numeric row refuses one past each bound and
// accepts the bounds themselves, on the command line and in BenchFlags alike.
TEST(BenchOptions, EveryBoundIsEnforcedBothWays) {
  int bounded = 0;
  for (const auto& o : benchOptions()) {
    if (o.check != OptionCheck::kWhole && o.check != OptionCheck::kNumber) continue;
    if (o.names == std::string("-r,--root")) continue;  // also bounded by the job's size
    ++bounded;
    auto text = [](double v) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      return std::string(buf);
    };
    double low = o.lo_open ? o.lo : o.lo - 1;
    EXPECT_NE(checkOptionText(o, text(low)), "") << o.names << " " << low;
    if (!std::isinf(o.hi)) {
      EXPECT_EQ(checkOptionText(o, text(o.hi)), "") << o.names;
      EXPECT_NE(checkOptionText(o, text(o.hi + 1)), "") << o.names;
    }
    EXPECT_NE(checkOptionText(o, "nan"), "") << o.names;
    BenchFlags f = local();
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(f.*member)>;
          if constexpr (std::is_same_v<T, int> || std::is_same_v<T, double> ||
                        std::is_same_v<T, std::optional<double>>) {
            if (low == 0 && !o.bench_default) return;  // 0: not given
            f.*member = static_cast<decltype(low)>(low);
            auto s = checkTabledOptions(f);
            ASSERT_FALSE(s.has_value()) << o.names;
            EXPECT_EQ(s.error().message.rfind(optionLabel(o) + ": expected " + expectedText(o), 0), 0u)
                << s.error().message;
          }
        },
        o.field);
  }
  EXPECT_GE(bounded, 10);
}

TEST(BenchFlags, MemoryCountsRanksOnTheHost) {
  BenchFlags f = local(4);
  f.max_bytes = "3G";  // 2 buffers x 3 GiB x 4 ranks = 24 GiB > 16 GiB
  EXPECT_FALSE(validateBenchFlags(f, launchOf(f), kMemory).has_value());
  f.local = 2;  // 12 GiB fits
  EXPECT_TRUE(validateBenchFlags(f, launchOf(f), kMemory).has_value());
  f.max_bytes = "16T";  // unknown memory: not checked
  EXPECT_TRUE(validateBenchFlags(f, launchOf(f), 0).has_value());
  EXPECT_GT(physicalMemoryBytes(), 0u);
}

Environment envOf(std::initializer_list<std::pair<const char*, const char*>> kv) {
  Environment env;
  for (auto [k, v] : kv) env.emplace(k, v);
  return env;
}

TEST(BenchFlags, LauncherEnvironment) {
  BenchFlags f;
  f.op = "all_reduce";
  auto ok = resolveLaunch(
      f, envOf({{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29600"}}),
      false);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->rank, 1);
  EXPECT_EQ(ok->size, 4);
  EXPECT_EQ(ok->master_port, 29600);
  EXPECT_EQ(ok->bootstrap, "env");

  // Port 0 (any) only for a job of one rank.
  EXPECT_TRUE(resolveLaunch(
      f, envOf({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}}), false));

  struct Case {
    Environment env;
    std::string want;
  };
  std::vector<Case> cases = {
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}}),
       "MASTER_PORT='70000'"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "abc"}}),
       "MASTER_PORT='abc'"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}}),
       "MASTER_PORT='0'"},
      {envOf({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), "RANK='x'"},
      {envOf({{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), "RANK='-1'"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "two"}, {"MASTER_ADDR", "h"}}), "WORLD_SIZE='two'"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "1000000"}, {"MASTER_ADDR", "h"}}), "WORLD_SIZE='1000000'"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"MASTER_ADDR", "h"}}), "WORLD_SIZE='0'"},
      {envOf({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), "RANK=2 is not below WORLD_SIZE=2"},
      {envOf({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "huge"}}),
       "OMPI_COMM_WORLD_SIZE='huge'"},
      {envOf({{"WORLD_SIZE", "2"}}), "no launcher found"},
  };
  for (const auto& c : cases) {
    auto l = resolveLaunch(f, c.env, true);
    ASSERT_FALSE(l.has_value()) << c.want;
    EXPECT_EQ(l.error().code, ErrorCode::kUsage);
    EXPECT_NE(l.error().message.find(c.want), std::string::npos) << l.error().message;
  }
  // -r is checked against the world size the environment gives.
  f.root = 4;
  auto l = resolveLaunch(f, envOf({{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "h"}}), false);
  ASSERT_TRUE(l.has_value());
  EXPECT_FALSE(validateBenchFlags(f, *l, kMemory).has_value());
}

// Kubeflow Trainer's torch policy and torchrun give PET_NODE_RANK, PET_NNODES,
// PET_MASTER_ADDR and PET_MASTER_PORT; they stand for RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT, and a disagreement between the two is refused.
TEST(BenchFlags, TrainerPetEnvironment) {
  BenchFlags f;
  f.op = "all_reduce";
  auto pet = resolveLaunch(f,
                           envOf({{"PET_NODE_RANK", "1"},
                                  {"PET_NNODES", "3"},
                                  {"PET_MASTER_ADDR", "job-node-0-0.job"},
                                  {"PET_MASTER_PORT", "29400"},
                                  {"PET_NPROC_PER_NODE", "8"}}),
                           false);
  ASSERT_TRUE(pet.has_value()) << pet.error().message;
  EXPECT_EQ(pet->bootstrap, "env");
  EXPECT_EQ(pet->rank, 1);
  EXPECT_EQ(pet->size, 3);
  EXPECT_EQ(pet->master_addr, "job-node-0-0.job");
  EXPECT_EQ(pet->master_port, 29400);

  // Both spellings, the same values: accepted.
  auto both = resolveLaunch(f,
                            envOf({{"RANK", "0"},
                                   {"PET_NODE_RANK", "0"},
                                   {"WORLD_SIZE", "2"},
                                   {"PET_NNODES", "2"},
                                   {"MASTER_ADDR", "h"},
                                   {"PET_MASTER_ADDR", "h"},
                                   {"MASTER_PORT", "29500"}}),
                            false);
  ASSERT_TRUE(both.has_value()) << both.error().message;
  EXPECT_EQ(both->size, 2);
  EXPECT_EQ(both->master_port, 29500);

  struct Case {
    Environment env;
    std::string want;
  };
  std::vector<Case> cases = {
      {envOf({{"RANK", "0"}, {"PET_NODE_RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}),
       "RANK='0' and PET_NODE_RANK='1' disagree"},
      {envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"PET_NNODES", "4"}, {"MASTER_ADDR", "h"}}),
       "WORLD_SIZE='2' and PET_NNODES='4' disagree"},
      {envOf({{"PET_NODE_RANK", "0"}, {"PET_NNODES", "2"}, {"MASTER_ADDR", "a"}, {"PET_MASTER_ADDR", "b"}}),
       "MASTER_ADDR='a' and PET_MASTER_ADDR='b' disagree"},
      {envOf({{"PET_NODE_RANK", "0"},
              {"PET_NNODES", "2"},
              {"PET_MASTER_ADDR", "h"},
              {"PET_MASTER_PORT", "1"},
              {"MASTER_PORT", "2"}}),
       "MASTER_PORT='2' and PET_MASTER_PORT='1' disagree"},
      {envOf({{"PET_NODE_RANK", "0"}, {"PET_NNODES", "1:4"}, {"PET_MASTER_ADDR", "h"}}), "PET_NNODES='1:4'"},
      {envOf({{"PET_NODE_RANK", "5"}, {"PET_NNODES", "2"}, {"PET_MASTER_ADDR", "h"}}), "RANK=5 is not below"},
      {envOf({{"PET_NNODES", "2"}}), "PET_NODE_RANK"},
  };
  for (const auto& c : cases) {
    auto l = resolveLaunch(f, c.env, false);
    ASSERT_FALSE(l.has_value()) << c.want;
    EXPECT_EQ(l.error().code, ErrorCode::kUsage);
    EXPECT_NE(l.error().message.find(c.want), std::string::npos) << l.error().message;
  }
  // Under mpirun the MPI variables rule; PET_* is not consulted.
  auto mpi = resolveLaunch(f,
                           envOf({{"OMPI_COMM_WORLD_RANK", "1"},
                                  {"OMPI_COMM_WORLD_SIZE", "2"},
                                  {"PET_NODE_RANK", "0"},
                                  {"MASTER_ADDR", "h"},
                                  {"MASTER_PORT", "1"}}),
                           false);
  ASSERT_TRUE(mpi.has_value()) << mpi.error().message;
  EXPECT_EQ(mpi->rank, 1);
}

// --nproc-per-node G, as torchrun's: the launcher's RANK and WORLD_SIZE (or
// PET_NODE_RANK and PET_NNODES) count nodes; this node runs ranks
// node x G .. node x G + G-1 of nodes x G.
TEST(BenchFlags, ProcessesPerNode) {
  BenchFlags f;
  f.op = "all_reduce";
  f.nproc_per_node = 4;
  auto node =
      resolveLaunch(f, envOf({{"PET_NODE_RANK", "1"}, {"PET_NNODES", "3"}, {"PET_MASTER_ADDR", "h"}}), false);
  ASSERT_TRUE(node.has_value()) << node.error().message;
  EXPECT_EQ(node->rank, 4);
  EXPECT_EQ(node->size, 12);
  EXPECT_EQ(node->ranks_to_fork, 4);
  EXPECT_EQ(node->ranks_on_this_host, 4);
  // A node rank out of range is still named as the launcher gave it.
  auto bad = resolveLaunch(f, envOf({{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}), false);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("RANK=3 is not below WORLD_SIZE=2"), std::string::npos)
      << bad.error().message;
  auto huge = resolveLaunch(f, envOf({{"RANK", "0"}, {"WORLD_SIZE", "65536"}, {"MASTER_ADDR", "h"}}), false);
  ASSERT_FALSE(huge.has_value());
  EXPECT_NE(huge.error().message.find("--nproc-per-node 4 is more than 65536 ranks"), std::string::npos);
  // mpirun places its ranks itself.
  auto mpi = resolveLaunch(f, envOf({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "0"}}), true);
  ASSERT_FALSE(mpi.has_value());
  EXPECT_NE(mpi.error().message.find("mpirun already starts every rank"), std::string::npos);
  expectRefused([](BenchFlags& g) { g.nproc_per_node = 2; }, "--nproc-per-node cannot be used with --local");
}

TEST(BenchFlags, JobToken) {
  BenchFlags f;
  EXPECT_EQ(*resolveJobToken(f, {}), "");
  EXPECT_EQ(*resolveJobToken(f, envOf({{"RAILKIT_JOB_TOKEN", "from-the-environment"}})),
            "from-the-environment");
  EXPECT_FALSE(resolveJobToken(f, envOf({{"RAILKIT_JOB_TOKEN", "short"}})).has_value());
  f.job_token = "from-the-command-line";
  EXPECT_EQ(*resolveJobToken(f, envOf({{"RAILKIT_JOB_TOKEN", "from-the-environment"}})),
            "from-the-command-line");
  std::string path = ::testing::TempDir() + "railkit_job_token_test";
  std::ofstream(path) << "from-a-mounted-secret\n";
  f.job_token_file = path;
  EXPECT_FALSE(resolveJobToken(f, {}).has_value());  // both: ambiguous
  f.job_token.clear();
  EXPECT_EQ(*resolveJobToken(f, {}), "from-a-mounted-secret");
  f.job_token_file = "/dev/zero";
  EXPECT_FALSE(resolveJobToken(f, {}).has_value());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace railkit::bench
