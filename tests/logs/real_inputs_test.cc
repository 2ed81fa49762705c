// `railkit logs` on real inputs users pasted in public threads
// (tests/logs/fixtures/real, sources in its README): NCCL's text without
// NCCL's line header, old NCCL formats, the transport and job size the
// evidence supports, failures that used to be missed, fix text no stronger
// than the evidence, and no finding on clean logs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "logs/input.h"
#include "logs/report.h"
#include "nccl_log_test_util.h"
#include "support/test_support.h"

namespace railkit::logs {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string fixture(const std::string& name) {
  auto path = railkit::testing::sourceDir() / "tests" / "logs" / "fixtures" / "real" / name;
  std::string text = testutil::readFile(path.string());
  EXPECT_FALSE(text.empty()) << path;
  return text;
}

InputReport analyze(const std::string& name) {
  return analyzeText(name, fixture(name));
}

const Finding* findingOf(const InputReport& r, const std::string& id) {
  return testutil::find(r.findings, id);
}

// --- 1. NCCL's text without NCCL's `host:pid:tid NCCL INFO` header.

TEST(RealInputs, PytorchLastErrorDuplicateGpu) {
  auto r = analyze("pytorch_duplicate_gpu.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  const Finding* dup = findingOf(r, "nccl-duplicate-gpu");
  ASSERT_NE(dup, nullptr) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_THAT(dup->message, HasSubstr("rank 3 and rank 0"));
  const Finding* err = findingOf(r, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr);
  EXPECT_THAT(err->message, HasSubstr("invalid usage"));
  EXPECT_THAT(err->message, HasSubstr("nccl-duplicate-gpu"));
  EXPECT_THAT(err->message, Not(HasSubstr("NCCL_DEBUG=INFO")));
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_THAT(r.nccl->nccl_versions, Contains("2.19.3"));
}

TEST(RealInputs, PytorchLastErrorNoSocketInterfaceBehindRankTags) {
  auto r = analyze("pytorch_no_socket_interface.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  EXPECT_NE(findingOf(r, "nccl-no-interface"), nullptr)
      << ::testing::PrintToString(testutil::ids(r.findings));
  const Finding* err = findingOf(r, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr);
  EXPECT_THAT(err->message, HasSubstr("internal error"));
}

TEST(RealInputs, PytorchUnhandledSystemErrorAlone) {
  auto r = analyze("pytorch_unhandled_system_error.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  const Finding* err = findingOf(r, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr);
  EXPECT_THAT(err->message, HasSubstr("unhandled system error (ncclSystemError)"));
  // Nothing else in the input: here rerunning with NCCL_DEBUG=INFO is the advice.
  EXPECT_THAT(err->message, HasSubstr("NCCL_DEBUG=INFO"));
}

TEST(RealInputs, WatchdogTimeoutWithoutNcclLines) {
  auto r = analyze("pytorch_watchdog_timeout.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  const Finding* t = findingOf(r, "nccl-timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->evidence.size(), 3u);
  EXPECT_THAT(r.notes, Not(Contains(HasSubstr("NCCL_DEBUG=INFO"))));
}

TEST(RealInputs, HeartbeatMonitorWithoutNcclLines) {
  auto r = analyze("pytorch_heartbeat_stuck.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  const Finding* t = findingOf(r, "nccl-timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(t->message, HasSubstr("Heartbeat monitor timed out"));
}

TEST(RealInputs, OldNcclFormatsAreNcclLines) {
  auto r = analyze("nccl_2_2_old_format.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_GE(r.nccl->nccl_lines, 10u);
  EXPECT_THAT(r.nccl->hosts, Contains("gpu-bql-144-103"));
  EXPECT_THAT(r.nccl->networks, Contains("Socket"));
  EXPECT_TRUE(r.nccl->hcas.empty()) << ::testing::PrintToString(r.nccl->hcas);
  EXPECT_EQ(r.nccl->nranks, std::optional<uint64_t>(2));
  EXPECT_NE(findingOf(r, "nccl-unhandled-error"), nullptr);
}

TEST(RealInputs, OldWarnWithoutPid) {
  // NCCL 2.1-2.3 lines with no pid:tid, in the shape the project's issue
  // quotes (no thread of it was found to copy).
  NcclLogAnalyzer a("old");
  a.feedLine("machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed", 1);
  EXPECT_TRUE(a.sawNccl());
  EXPECT_NE(testutil::find(a.findings(), "nccl-verbs-resource-failed"), nullptr);
  EXPECT_THAT(a.facts().hosts, Contains("machine"));
  // The 2.1-2.3 network choice, in both spellings.
  NcclLogAnalyzer b("old-net");
  b.feedLine("machine:1:1 [0] INFO NET : Using internal Network Socket", 1);
  EXPECT_THAT(b.facts().networks, Contains("Socket"));
  NcclLogAnalyzer c("old-net-2");
  c.feedLine("gpu2:46654:46654 [0] NCCL INFO Using internal Network IB", 1);
  EXPECT_THAT(c.facts().networks, Contains("IB"));
}

TEST(RealInputs, OtherProgramsInfoLinesAreNotNccl) {
  NcclLogAnalyzer a("py");
  a.feedLine("[2024-05-01 12:00:00] INFO Connection reset by peer, retrying", 1);
  a.feedLine("worker-0 [3] INFO training step 100", 2);
  EXPECT_FALSE(a.sawNccl());
  EXPECT_TRUE(a.findings().empty());
}

TEST(RealInputs, LauncherAndTimestampPrefixes) {
  const std::string line =
      "gpu1:8194:8194 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.11<0>";
  for (const std::string prefix :
       {"host1: ", "[1,0]<stdout>:", "2024-01-01 12:00:00,123 ", "[2026-03-13 22:26:02] "}) {
    NcclLogAnalyzer a("p");
    a.feedLine(prefix + line, 1);
    auto f = a.facts();
    EXPECT_THAT(f.hosts, Contains("gpu1")) << prefix;
    EXPECT_THAT(f.hcas, Contains("mlx5_0:1/IB")) << prefix;
  }
}

TEST(RealInputs, NcclErrorsCutOutOfTracebacks) {
  auto what = analyze("pytorch_what_nccl_error.log");
  EXPECT_EQ(what.kind, InputKind::kNcclLog);
  const Finding* err = findingOf(what, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr);
  EXPECT_THAT(err->message, HasSubstr("unhandled cuda error (ncclUnhandledCudaError)"));
  auto tf = analyze("tf_communication_aborted.log");
  err = findingOf(tf, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr) << ::testing::PrintToString(testutil::ids(tf.findings));
  EXPECT_THAT(err->message, HasSubstr("unhandled system error (ncclSystemError)"));
  ASSERT_TRUE(tf.nccl.has_value());
  EXPECT_THAT(tf.nccl->hosts, Contains("job-1111-2222-0"));
  // One rank of nranks 4 shown: not proof that the job ran on one host.
  EXPECT_EQ(tf.nccl->inter_node_transport, "unknown");
}

// --- 2. Transport and job size from the evidence.

TEST(RealInputs, SidebandInterfaceIsNotAnHcaAndNranksMeansHosts) {
  auto r = analyze("nccl_2_3_sideband.log");
  ASSERT_TRUE(r.nccl.has_value());
  const auto& f = *r.nccl;
  EXPECT_TRUE(f.hcas.empty()) << ::testing::PrintToString(f.hcas);
  EXPECT_THAT(f.networks, Contains("Socket"));
  EXPECT_EQ(f.inter_node_transport, "Socket");
  EXPECT_EQ(f.nranks, std::optional<uint64_t>(8));
  // 3 GPUs of gpu2 shown, 8 ranks: several hosts.
  EXPECT_GE(f.host_count, 2u);
  EXPECT_GE(f.ranks, f.host_count);
  EXPECT_NE(findingOf(r, "nccl-net-socket"), nullptr) << ::testing::PrintToString(testutil::ids(r.findings));
}

TEST(RealInputs, MergedNicFormat) {
  auto r = analyze("merged_nic_roce.log");
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_EQ(r.nccl->hcas,
            (std::vector<std::string>{"mlx5_2:1/RoCE", "mlx5_3:1/RoCE", "mlx5_0:1/RoCE", "mlx5_1:1/RoCE"}));
  // The plugin net keeps its name; the /RoCE HCAs give its link layer.
  EXPECT_EQ(r.nccl->inter_node_transport, "IBext_v8");
  EXPECT_EQ(r.nccl->link_layer, "Ethernet");
  EXPECT_EQ(r.nccl->host_count, 3u);  // nNodes 3
}

TEST(RealInputs, RoceGidMeansRoceAndErrnoIsPrinted) {
  auto r = analyze("modify_qp_110_roce.log");
  EXPECT_EQ(r.kind, InputKind::kNcclLog);
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_EQ(r.nccl->inter_node_transport, "RoCE");
  const Finding* qp = findingOf(r, "nccl-qp-connect-failed");
  ASSERT_NE(qp, nullptr);
  EXPECT_THAT(qp->message, HasSubstr("errno 110 Connection timed out"));
  EXPECT_THAT(qp->message, HasSubstr("GID index 3"));
  EXPECT_THAT(qp->fix, HasSubstr("NCCL_CROSS_NIC=0"));
}

TEST(RealInputs, SameHostnameDifferentBootstrapAddressIsTwoHosts) {
  NcclLogAnalyzer a("two");
  // Two containers both named like the image (hostname "bigo"), from the merged-NIC thread's shape.
  a.feedLine("bigo:1884:1884 [0] NCCL INFO Bootstrap : Using bond0.526:169.136.106.9<0>", 1);
  a.feedLine("bigo:2211:2211 [0] NCCL INFO Bootstrap : Using bond0.526:169.136.106.10<0>", 2);
  auto f = a.facts();
  EXPECT_EQ(f.hosts.size(), 1u);
  EXPECT_EQ(f.host_count, 2u);
  EXPECT_GE(f.ranks, 2u);
}

TEST(RealInputs, SocketTraceTellsTheTransport) {
  auto r = analyze("socket_recv_polling.log");
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_NE(r.nccl->inter_node_transport, "IB");
  NcclLogAnalyzer a("trace");
  a.feedLine("ubuntu:39964:40075 [0] NCCL INFO transport/net_socket.cc:336 -> 2", 1);
  EXPECT_EQ(a.facts().inter_node_transport, "Socket");
}

// The INFO messages of healthy runs that no fact reads (shapes from
// ../shared/data's logs) are known: no finding, each still an NCCL line;
// a trace frame whose file starts with the same letter is still a trace.
TEST(RealInputs, RoutineInfoLinesAreKnownAndTracesStillCount) {
  NcclLogAnalyzer a("routine");
  const std::vector<std::string> lines = {
      "node-1:100:100 [0] NCCL INFO dlvsym failed on mlx5dv_reg_dmabuf_mr - /usr/lib/x86_64-linux-gnu/"
      "libmlx5.so.1 version MLX5_1.25",
      "node-1:100:100 [0] NCCL INFO NVLS multicast support is not available on dev 0",
      "node-1:100:100 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:",
      "node-2:200:200 [1] NCCL INFO dlvsym failed on mlx5dv_get_data_direct_sysfs_path - /usr/lib/"
      "x86_64-linux-gnu/libmlx5.so.1 version MLX5_1.25",
  };
  uint64_t n = 0;
  for (const auto& line : lines) a.feedLine(line, ++n);
  EXPECT_TRUE(a.findings().empty());
  EXPECT_EQ(a.facts().nccl_lines, lines.size());
  EXPECT_NE(a.facts().inter_node_transport, "Socket");
  a.feedLine("node-2:200:201 [1] NCCL INFO dev/net_socket.cc:336 -> 2", ++n);
  EXPECT_EQ(a.facts().inter_node_transport, "Socket");
}

TEST(RealInputs, CountsAreNeverImpossible) {
  for (const char* name : {"nccl_2_3_sideband.log", "merged_nic_roce.log", "socket_recv_polling.log",
                           "pytorch_watchdog_timeout.log", "shm_attach.log", "healthy_ib_2_7.log"}) {
    auto r = analyze(name);
    if (!r.nccl) continue;
    EXPECT_GE(r.nccl->ranks, r.nccl->host_count) << name;
    if (r.nccl->ranks > 0) {
      EXPECT_GE(r.nccl->host_count, 1u) << name;
    }
  }
}

// --- 3. Failures that used to be missed.

TEST(RealInputs, ShmAttachFailureIsNotBlamedOnSize) {
  auto r = analyze("shm_attach.log");
  const Finding* shm = findingOf(r, "nccl-shm-failure");
  ASSERT_NE(shm, nullptr);
  EXPECT_THAT(shm->message, HasSubstr("attach"));
  EXPECT_THAT(shm->message, Not(HasSubstr("64 MiB")));
  EXPECT_THAT(shm->fix, Not(HasSubstr("--shm-size")));
}

TEST(RealInputs, ShmSizeIsBlamedWhenSpaceRanOut) {
  auto r = analyze("shm_extend.log");
  const Finding* shm = findingOf(r, "nccl-shm-failure");
  ASSERT_NE(shm, nullptr);
  EXPECT_THAT(shm->message, HasSubstr("ran out of space"));
  EXPECT_THAT(shm->fix, HasSubstr("--shm-size"));
  // The shm finding explains the failed init: no second finding for it.
  EXPECT_EQ(findingOf(r, "nccl-unhandled-error"), nullptr);
  auto attach = analyze("shm_attach_timestamped.log");
  shm = findingOf(attach, "nccl-shm-failure");
  ASSERT_NE(shm, nullptr);
  EXPECT_THAT(shm->message, HasSubstr("attach"));
  EXPECT_THAT(shm->fix, Not(HasSubstr("--shm-size")));
  ASSERT_TRUE(attach.nccl.has_value());
  EXPECT_THAT(attach.nccl->hosts, Contains("d4fde3314201"));
}

TEST(RealInputs, FailedInitTracedAsArrowThree) {
  // The whole excerpt: the closed connection explains the failed init.
  auto whole = analyze("socket_recv_polling.log");
  EXPECT_NE(findingOf(whole, "nccl-connection-closed"), nullptr);
  // The same rank's lines from the polling WARN on (what one rank's file
  // often holds): the failed init is still reported, with NCCL's words.
  std::string text = fixture("socket_recv_polling.log");
  text = text.substr(text.find("ubuntu:39964:40044 [0] proxy.cc"));
  auto r = analyzeText("cut.log", text);
  const Finding* err = findingOf(r, "nccl-unhandled-error");
  ASSERT_NE(err, nullptr) << ::testing::PrintToString(testutil::ids(r.findings));
  EXPECT_THAT(err->message, HasSubstr("internal error (ncclInternalError)"));
  EXPECT_THAT(err->message, HasSubstr("-> 3"));
  EXPECT_THAT(err->message, HasSubstr("Socket recv failed while polling"));
  EXPECT_FALSE(err->evidence.empty());
}

TEST(RealInputs, NcclTestsTableWithoutHashLines) {
  auto r = analyze("nccl_tests_no_hash.log");
  EXPECT_EQ(r.kind, InputKind::kNcclTests);
  ASSERT_TRUE(r.table.has_value());
  ASSERT_TRUE(r.table->avg_busbw_gbs.has_value());
  EXPECT_DOUBLE_EQ(*r.table->avg_busbw_gbs, 128.942);
  const Finding* oob = findingOf(r, "nccl-tests-out-of-bounds");
  ASSERT_NE(oob, nullptr);
  EXPECT_THAT(oob->message, HasSubstr("2 FAILED"));
}

// --- 4. Fix text as strong as the evidence.

TEST(RealInputs, CompletionErrorFixIsForItsStatus) {
  auto r = analyze("ib_completion_12.log");
  const Finding* wc = findingOf(r, "nccl-ib-completion-error");
  ASSERT_NE(wc, nullptr);
  EXPECT_THAT(wc->message, HasSubstr("IBV_WC_RETRY_EXC_ERR"));
  EXPECT_THAT(wc->fix, HasSubstr("GID index"));
  EXPECT_THAT(wc->fix, Not(HasSubstr("ACS")));
  EXPECT_THAT(wc->fix, Not(HasSubstr("status 10")));
}

TEST(RealInputs, ProxyCrashWithoutResourceEvidenceIsNotMemlock) {
  NcclLogAnalyzer a("crash");
  a.feedLine("node:12:34 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>", 1);
  a.feedLine("Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)", 2);
  a.feedLine("    frame #3: ncclProxyProgress + 0x1a4 (0x7f in libnccl.so.2)", 3);
  const auto findings = a.findings();  // f points into it
  const Finding* f = testutil::find(findings, "nccl-proxy-crash");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, Not(HasSubstr("memlock")));
  EXPECT_THAT(f->fix, Not(HasSubstr("memlock")));
}

TEST(RealInputs, EfaNoGdrGetsTheEfaRecipe) {
  auto r = analyze("efa_no_gdr.log");
  ASSERT_TRUE(r.nccl.has_value());
  EXPECT_EQ(r.nccl->inter_node_transport, "AWS Libfabric");
  EXPECT_GE(r.nccl->host_count, 2u);
  const Finding* f = findingOf(r, "nccl-no-gdr");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->fix, HasSubstr("FI_EFA_USE_DEVICE_RDMA"));
  EXPECT_THAT(f->fix, Not(HasSubstr("nvidia_peermem")));
  EXPECT_THAT(f->fix, Not(HasSubstr("ACS")));
}

TEST(RealInputs, ResultCodeIsTheOneTheLogShows) {
  // CUDA's 'invalid argument' (https://github.com/NVIDIA/nccl/issues/957's
  // title) is not NCCL's ncclInvalidArgument.
  NcclLogAnalyzer a("cuda");
  a.feedLine("host:1:2 [0] transport/p2p.cc:272 NCCL WARN Cuda failure 'invalid argument'", 1);
  auto findings = a.findings();
  EXPECT_EQ(testutil::find(findings, "nccl-unhandled-error"), nullptr) << findings.front().message;
  auto r = analyze("pytorch_unhandled_system_error.log");
  const Finding* sys = findingOf(r, "nccl-unhandled-error");
  ASSERT_NE(sys, nullptr);
  EXPECT_THAT(sys->message, Not(HasSubstr("ncclInternalError")));
}

// --- 5. No finding on clean real logs.

TEST(RealInputs, CleanRealLogsHaveNoFinding) {
  for (const char* name : {"healthy_ib_2_7.log", "nccl_tests_ok.log"}) {
    auto r = analyze(name);
    EXPECT_TRUE(r.findings.empty()) << name << ": " << ::testing::PrintToString(testutil::ids(r.findings));
  }
  auto ok = analyze("nccl_tests_ok.log");
  ASSERT_TRUE(ok.table.has_value());
  EXPECT_DOUBLE_EQ(ok.table->avg_busbw_gbs.value_or(0), 95.3009);
}

}  // namespace
}  // namespace railkit::logs
