#include "logs/output_findings.h"

#include <fmt/core.h>

namespace railkit::logs {
namespace {

// The ids raised here, each declared once; outputFindingRules() lists them
// for the logs catalogue.
constexpr RuleInfo kNcclTestsWrongResults = {
    "nccl-tests-wrong-results", Severity::kError, "nccl-tests counted wrong result elements",
    R"(The #wrong column of an nccl-tests table is not zero: collectives returned wrong data. Wrong results
are never a tuning problem.)",
    R"(Fix: rerun with NCCL_PROTO=Simple and NCCL_ALGO=Ring to isolate the protocol, and check GPU and NIC
health (dmesg Xid, mlx5 errors).)"};

constexpr RuleInfo kNcclTestsOutOfBounds = {
    "nccl-tests-out-of-bounds", Severity::kError, "nccl-tests reported out-of-bounds values",
    R"(nccl-tests checks every result against its expected value; `Out of bounds values : N FAILED` means N
values were wrong beyond rounding: data was corrupted or a rank wrote outside its buffer.)",
    R"(Fix: check that every rank runs the same NCCL build, GPU and NIC health (dmesg Xid, mlx5 errors),
and rerun with NCCL_PROTO=Simple to isolate the protocol.)"};

constexpr RuleInfo kPerftestFailed = {
    "perftest-failed", Severity::kError, "A perftest run (ib_write_bw, ...) failed",
    R"(The perftest tool stopped with an error, typically a work completion with an error status. The
status says what failed: 12 the peer never acknowledged (GID index, route, link, PFC/ECN), 13 the
receiver had no buffer (start the server first), 10 a remote access error (registration, GPU memory
support), 4 a local protection error (PCIe ACS or IOMMU with --use_cuda), 5 flushed after an earlier
error.)",
    R"(Fix: what the reported status points at, then rerun the same test between the same two ports.)"};

constexpr RuleInfo kNcclTestsBusbwLow = {
    "nccl-tests-busbw-low", Severity::kError, "nccl-tests bus bandwidth below the expected bound",
    R"(The bus bandwidth nccl-tests measured at the largest size is below what --expect-busbw or the line
rate of the NICs allows.)",
    R"(Fix: check every NIC is ACTIVE at full rate and carries the traffic (NCCL_IB_HCA,
NCCL_SOCKET_IFNAME), that NCCL used RDMA with GPUDirect (no NET/Socket, /GDRDMA present), and the
GPU-NIC affinity; `railkit doctor` on each node.)"};

// What a perftest work-completion status usually means on a GPU cluster.
std::string statusFix(int status) {
  switch (status) {
    case 12:
      return "the peer never acknowledged: check the GID index (RoCE v2 GID of the right netdev), the route "
             "between the two ports, the link state and PFC/ECN on the switch";
    case 13:
      return "the receiver had no buffer posted (RNR): start the server side first and keep -q/-t equal";
    case 10:
      return "the remote side refused the access: with GPU memory (--use_cuda) check nvidia_peermem or "
             "DMA-BUF "
             "support and that both sides register the same sizes; without it check the memlock limit";
    case 4:
      return "a local protection error usually means PCIe ACS or the IOMMU redirects peer-to-peer traffic: "
             "disable ACS on the switches between GPU and NIC (or run without --use_cuda to confirm)";
    case 5: return "work requests were flushed after an earlier error: look at the first error above it";
    default:
      return "see the first error line; ibv_devinfo and `railkit doctor` on both hosts show port and GID "
             "state";
  }
}

}  // namespace

const std::vector<RuleInfo>& outputFindingRules() {
  static const std::vector<RuleInfo> kRules = {kNcclTestsBusbwLow, kNcclTestsOutOfBounds,
                                               kNcclTestsWrongResults, kPerftestFailed};
  return kRules;
}

std::vector<Finding> tableFindings(const NcclTestsTable& table, const std::string& file) {
  std::vector<Finding> out;
  if (table.wrong_total && *table.wrong_total > 0) {
    Finding f = findingOf(kNcclTestsWrongResults);
    f.subject = file;
    f.file = file;
    f.message = fmt::format("nccl-tests counted {} wrong result element(s): data was corrupted on the way",
                            *table.wrong_total);
    for (const auto& r : table.rows) {
      long wrong = r.oop_wrong.value_or(0) + r.ip_wrong.value_or(0);
      if (wrong <= 0 || f.evidence.size() >= 5) continue;
      f.evidence.push_back({file, static_cast<long>(r.line),
                            fmt::format("size {} bytes: #wrong {} (out-of-place) {} (in-place)", r.size_bytes,
                                        r.oop_wrong.value_or(0), r.ip_wrong.value_or(0))});
    }
    if (!f.evidence.empty()) f.line = f.evidence.front().line;
    f.fix =
        "rerun with NCCL_PROTO=Simple and NCCL_ALGO=Ring to isolate the protocol, and check GPU and NIC "
        "health (dmesg Xid, mlx5 errors); wrong results are never a tuning problem";
    out.push_back(std::move(f));
  }
  if (table.out_of_bounds && table.out_of_bounds->find("FAILED") != std::string::npos) {
    Finding f = findingOf(kNcclTestsOutOfBounds);
    f.subject = file;
    f.file = file;
    f.message = "nccl-tests reported out-of-bounds values: " + *table.out_of_bounds;
    f.evidence.push_back({file, std::nullopt, *table.out_of_bounds});
    f.fix = "a rank wrote outside its buffer: check for mismatched NCCL versions across ranks and GPU errors";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> perftestFindings(const PerftestResult& result, const std::string& file) {
  std::vector<Finding> out;
  if (result.errors.empty()) return out;
  Finding f = findingOf(kPerftestFailed);
  f.subject = result.device.empty() ? file : result.device;
  f.file = file;
  f.line = static_cast<long>(result.errors.front().line);
  std::optional<int> status;
  for (const auto& e : result.errors) {
    if (!status && e.wc_status) status = e.wc_status;
    if (f.evidence.size() < 6) f.evidence.push_back({file, static_cast<long>(e.line), e.text});
  }
  std::string tool = result.tool.empty() ? std::string("perftest") : result.tool;
  if (status) {
    f.message = fmt::format("{} stopped: a work completion failed with status {} ({})", tool, *status,
                            wcStatusName(*status));
    if (!result.rows.empty())
      f.message += fmt::format(" after {} result row(s), last size {} bytes", result.rows.size(),
                               result.rows.back().bytes);
    f.fix = statusFix(*status);
  } else {
    f.message = fmt::format("{} reported an error: {}", tool, result.errors.front().text);
    f.fix = statusFix(-1);
  }
  out.push_back(std::move(f));
  return out;
}

std::vector<Finding> gradeFindings(const Grade& grade) {
  std::vector<Finding> out;
  if (grade.status != GradeStatus::kFail) return out;
  Finding f = findingOf(kNcclTestsBusbwLow);
  f.subject = grade.file;
  f.file = grade.file;
  f.line = static_cast<long>(grade.line);
  f.message = grade.reason;
  f.evidence.push_back({grade.file, static_cast<long>(grade.line),
                        fmt::format("busbw {:.4g} GB/s at {:.0f} bytes", grade.measured_busbw_gbs.value_or(0),
                                    grade.size_bytes)});
  f.fix =
      "check that every NIC of the node is ACTIVE at full rate and that the data goes over them "
      "(NCCL_IB_HCA, "
      "NCCL_SOCKET_IFNAME; --data-if for railkit bench); when NCCL ran the test, which transport it used "
      "(NET/Socket "
      "or no GDRDMA in the NCCL lines) and GPU-NIC affinity; `railkit doctor` on each node";
  out.push_back(std::move(f));
  return out;
}

}  // namespace railkit::logs
