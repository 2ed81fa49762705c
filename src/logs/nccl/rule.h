#pragma once
// A finding rule over NCCL log lines: one small file per id in rules/ that
// defines its NcclRule (the RuleInfo `railkit explain` prints, and the
// matcher), listed in rules/list.inc. `match` sees every WARN line, every other line mentioning
// NCCL, and INFO lines the fact scanner did not consume; it says whether the
// line is evidence and may name a detail (an error text) and a subject (a
// peer, an HCA); it must depend on the line alone (no state of its own), as
// its result is remembered for lines that repeat (by body and level, unless
// the rule says it reads the whole text). `build` turns the hits,
// with the input's facts, into at most one finding. Rules that rest on facts
// alone (transport, GDR, versions) have no `match` and read the signals the
// fact scanner stored.

#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/rule_info.h"
#include "logs/nccl/line.h"
#include "logs/nccl/state.h"
#include "logs/nccl_log.h"

namespace railkit::logs::nccl {

struct RuleContext {
  const AnalyzerState& state;
  const NcclLogFacts& facts;
  const std::vector<Finding>& earlier;  // findings of rules listed before this one
};

struct NcclRule : RuleInfo {
  bool (*match)(const NcclLine& line, std::string* detail, std::string* subject);  // may be nullptr
  std::optional<Finding> (*build)(const Hits& hits, const RuleContext& context);
  // match reads line.text (the header and prefixes too), not only line.body
  // and line.level: such a rule runs on every line, the others' results are
  // remembered by body.
  bool reads_text = false;
  // A rule that reports one finding per subject (a crashed process) builds
  // them all here; `build` is then nullptr.
  std::vector<Finding> (*build_each)(const RuleContext& context) = nullptr;
  // What the rule reads is any program's output, not NCCL's (a process that
  // crashed): it reports even on an input without a single NCCL line.
  bool any_log = false;
};

const std::vector<NcclRule>& allNcclRules();

// Every rule, by name: the findings a rule builds, and the job-wide ones
// (nccl_job.cc) or other rules that name it, take its id from here.
#define RAILKIT_NCCL_RULE(name) extern const NcclRule name;
#include "logs/nccl/rules/list.inc"
#undef RAILKIT_NCCL_RULE

// Shared by the rules: a finding of `rule` (its declared severity, or one
// the rule lowered) with the hits' evidence (bounded) and a count line when
// there were more hits than evidence kept.
Finding makeFinding(const RuleInfo& rule, Severity lowered, std::string subject, std::string message,
                    std::string fix, const AnalyzerState& state, std::initializer_list<const Hits*> hits);
Finding makeFinding(const RuleInfo& rule, std::string subject, std::string message, std::string fix,
                    const AnalyzerState& state, std::initializer_list<const Hits*> hits);

// NcclLogFacts from the streamed state (transport, GDR, counts).
NcclLogFacts summarize(const AnalyzerState& state);
bool isIbLike(const std::string& inter_node_transport);

}  // namespace railkit::logs::nccl
