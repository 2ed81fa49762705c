#pragma once
// The shapes a profile's or a flag's free-form values may take before render
// writes them. A value lands in YAML (a scalar, a `#` comment line above an
// object, a `|` block), in the pods' shell scripts, in file names under
// --output and in PromQL; each shape below allows only characters that mean
// nothing in any of those (no quote, no `$`, no space, no line break of any
// Unicode kind, nothing outside printable ASCII), so a value can never change
// the structure of what render writes. A value of another shape is refused on
// input with one line naming the field and what it allows.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::k8s::render {

enum class ValueShape {
  kImageReference,  // registry/name:tag@sha256:hex (OCI distribution grammar's characters)
  kResourceName,    // a Kubernetes extended resource: domain/name
  kDnsLabel,        // a Kubernetes object name or namespace (RFC 1123 label)
  kDnsSubdomain,    // a node name (RFC 1123 subdomain)
  kHcaEntry,        // one NCCL_IB_HCA entry: [=^]device[:port]
  kQuantity,        // a Kubernetes quantity: 64Gi, 1.5G, 500M
  kPciAddress,      // 0000:17:00.0
  kCidr,            // 10.0.0.0/16
  kWord,            // a plain word: letters, digits, '.', '_', '-'
  kWordList,        // words separated by ',' (validate's ops)
};

// OK when `value` has `shape`; else a usage error "FIELD: expected WHAT,
// found 'VALUE'" with VALUE's bytes outside printable ASCII written \xNN.
Status checkValue(std::string_view field, std::string_view value, ValueShape shape);
Status checkValues(std::string_view field, const std::vector<std::string>& values, ValueShape shape);

// `value` with every byte outside printable ASCII written \xNN (for messages).
std::string printable(std::string_view value);

}  // namespace railkit::k8s::render
