#pragma once
// What every finding id has, whichever command reports it: the id, the most
// serious severity it is reported with, a one-line title, and what `railkit
// explain` prints: the explanation (why it matters) and the fix. Each id is
// declared once, next to what raises it: doctor's and lint's rules are a
// RuleInfo plus their check, an NCCL log rule a RuleInfo plus its matcher,
// and the other logs and validate ids RuleInfo constants their raisers use.
// Findings are built from the declaration (findingOf), so the id string
// appears once in src/. `--list-rules` and `railkit explain` read only this
// part.

#include "core/finding.h"

namespace railkit {

struct RuleInfo {
  const char* id;
  Severity severity;  // the most serious severity the id is reported with
  const char* title;
  const char* explain;  // why it matters, what the detectors check
  const char* fix;      // "Fix: ...", how to fix it; printed after the explanation
};

// A finding of `rule`: its id and its declared severity.
Finding findingOf(const RuleInfo& rule);
// The same with a severity the detector lowered for this case; never more
// serious than the declared one, which `--list-rules` and explain promise.
Finding findingOf(const RuleInfo& rule, Severity lowered);

}  // namespace railkit
