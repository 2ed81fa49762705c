#include "validate/validate_options.h"

namespace railkit::validate {
namespace {

using bench::OptionCheck;

template <class... Bounds>
ValidateOption row(const char* names, ValidateField field, Bounds... bounds) {
  return bench::optionRow<ValidateOption>(names, field, bounds...);
}

// What phase 1 reads and expects of every node.
void addNodeOptions(std::vector<ValidateOption>& t) {
  ValidateOption o;
  o = row("--root", &ValidateFlags::root);
  o.help = "Phase 1 reads this snapshot (directory or .tar.gz) instead of this machine";
  t.push_back(o);
  o = row("--live-net", &ValidateFlags::live_net, OptionCheck::kSwitch);
  o.help =
      "With --root: take addresses (the subnet plan's), routes, policy rules, IPv4 sysctls and DCB from "
      "this machine's network namespace instead of the snapshot's railkit/live.json";
  t.push_back(o);
  o = row("--expect-nics", &ValidateFlags::expect_nics, OptionCheck::kWhole, 0, 1024);
  o.help = "active RDMA ports each node must have on its data rails";
  t.push_back(o);
  o = row("--expect-gpus", &ValidateFlags::expect_gpus, OptionCheck::kWhole, 0, 1024);
  o.help = "GPUs each node must have";
  t.push_back(o);
  o = row("--rails", &ValidateFlags::rails);
  o.help = "the data rails, in NCCL_IB_HCA syntax (default NCCL_IB_HCA; unset: every RDMA port)";
  t.push_back(o);
  o = row("--lldpctl", &ValidateFlags::lldpctl);
  o.meaning = "a shell command, or empty", o.bench_default = "lldpctl -f json";
  o.help =
      "phase 1: the command (run by /bin/sh, with a deadline) that prints this node's LLDP neighbours as "
      "lldpctl's json or json0; rank 0 checks the Ethernet fabric they show. Empty: off";
  o.details =
      "; lldpd must run on the node (or its socket be given: 'lldpctl -u SOCKET -f json'); a node where "
      "the command fails says why in its report and is not failed for it.";
  t.push_back(o);
}

// How long phases 3 and 4 run and what they call slow.
void addRunOptions(std::vector<ValidateOption>& t) {
  ValidateOption o;
  o = row("--ops", &ValidateFlags::ops);
  o.bench_default = "all_reduce", o.help = "collectives of phase 4, comma-separated";
  t.push_back(o);
  o = row("--collectives-budget", &ValidateFlags::collectives_budget, OptionCheck::kNumber, 0,
          bench::kMaxTimeoutSeconds, true);
  o.unit = "seconds", o.bench_default = "60";
  o.help =
      "phase 4: seconds its sweep may take at the slowest link phase 3 measured; larger sizes (then "
      "iterations) are cut to fit";
  t.push_back(o);
  o = row("--pairs-bytes", &ValidateFlags::pairs_bytes, OptionCheck::kSize, 1, 4294967296.0);
  o.meaning = "a size from 1 byte to 4G", o.bench_default = "64M";
  o.help = "phase 3: bytes each pair moves per iteration";
  t.push_back(o);
  o = row("--pairs-iters", &ValidateFlags::pairs_iters, OptionCheck::kWhole, 1, 1000);
  o.bench_default = "5", o.help = "phase 3: iterations per pair";
  t.push_back(o);
  o = row("--slow-fraction", &ValidateFlags::slow_fraction, OptionCheck::kNumber, 0, 1, true);
  o.unit = "a fraction of the median", o.bench_default = "0.8";
  o.help = "phase 3: a link below this fraction of the median is slow";
  t.push_back(o);
  o = row("--fail-fast", &ValidateFlags::fail_fast, OptionCheck::kSwitch);
  o.help = "stop after phases 1-2 when a node fails or differs";
  t.push_back(o);
  o = row("--list-rules", &ValidateFlags::list_rules, OptionCheck::kSwitch);
  o.help = "List the ids validate raises itself (phase 1 also reports doctor's: doctor --list-rules)";
  t.push_back(o);
}

std::vector<ValidateOption> makeTable() {
  std::vector<ValidateOption> t;
  addNodeOptions(t);
  addRunOptions(t);
  return t;
}

}  // namespace

const std::vector<ValidateOption>& validateOptions() {
  static const std::vector<ValidateOption> table = makeTable();
  return table;
}

ValidateFlags::ValidateFlags() {
  for (const auto& o : validateOptions())
    if (o.bench_default) bench::setFromText(*this, o.field, o.bench_default);
}

}  // namespace railkit::validate
