#pragma once
// What every finding id has, whichever command reports it: the id, the most
// serious severity it is reported with, a one-line title and the explanation
// `railkit explain` prints (why it matters and how to fix it). Each domain
// keeps one sorted table of them: doctor's and lint's rules are a RuleInfo
// plus their check, the logs catalogue and validate's ids are RuleInfo rows.
// `--list-rules` and `railkit explain` read only this part.

#include "core/finding.h"

namespace railkit {

struct RuleInfo {
  const char* id;
  Severity severity;  // the most serious severity the id is reported with
  const char* title;
  const char* explain;
};

}  // namespace railkit
