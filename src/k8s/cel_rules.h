#pragma once
// The CEL rules of CRDs (x-kubernetes-validations) that railkit evaluates
// itself. The API server runs them when an object is created; a schema
// check alone does not. Rather than a CEL interpreter, each rule railkit
// relies on (those of the CRDs it writes objects for: Volcano's HyperNode,
// Kueue's Topology) is written here as a C++ predicate with the same
// meaning, found by the rule's text. A rule not in the table is reported as
// not evaluated, never as passed.
//
// Transition rules (they read `oldSelf`) apply to updates only: the API
// server skips them on create, and so does railkit.

#include <string>
#include <string_view>

#include "k8s/yaml.h"

namespace railkit::k8s {

enum class CelOutcome { kPassed, kFailed, kUnknownRule, kTransitionRule };

// Evaluates `rule` with `self` bound to the node the rule is declared on.
CelOutcome evaluateCelRule(std::string_view rule, const YamlNode& self);

// The rule's text with runs of white space as one space (CRD generators
// fold long rules over lines), as the table is keyed.
std::string normalizeCelRule(std::string_view rule);

}  // namespace railkit::k8s
