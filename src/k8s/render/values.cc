#include "k8s/render/values.h"

#include <cstdio>

namespace railkit::k8s::render {
namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool lowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Every character of `value` is alphanumeric or one of `extra`.
bool made_of(std::string_view value, std::string_view extra, bool lower_only = false) {
  for (char c : value) {
    bool letter = lower_only ? lowerAlnum(c) : alnum(c);
    if (!letter && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool quantity(std::string_view value) {
  size_t digits = 0;
  while (digits < value.size() && ((value[digits] >= '0' && value[digits] <= '9') || value[digits] == '.'))
    ++digits;
  if (digits == 0 || value.size() - digits > 2) return false;
  for (size_t i = digits; i < value.size(); ++i)
    if (!((value[i] >= 'a' && value[i] <= 'z') || (value[i] >= 'A' && value[i] <= 'Z'))) return false;
  return true;
}

struct ShapeRule {
  const char* expected;
  size_t max_size;
};

ShapeRule ruleOf(ValueShape shape) {
  switch (shape) {
    case ValueShape::kImageReference:
      return {"an image reference (letters, digits and . _ - / : @, e.g. registry.example/railkit:0.1.0)",
              512};
    case ValueShape::kResourceName:
      return {"a resource name (letters, digits and . _ - /, e.g. rdma/rdma_shared_device_a)", 253};
    case ValueShape::kDnsLabel: return {"a DNS label (lower-case letters, digits and -, at most 63)", 63};
    case ValueShape::kDnsSubdomain: return {"a node name (lower-case letters, digits, . and -)", 253};
    case ValueShape::kHcaEntry:
      return {"an NCCL_IB_HCA entry (letters, digits and _ . : = ^ -, e.g. mlx5_0:1)", 64};
    case ValueShape::kQuantity: return {"a quantity (digits then a unit, e.g. 64Gi)", 32};
    case ValueShape::kPciAddress: return {"a PCI address (hex digits, : and ., e.g. 0000:17:00.0)", 16};
    case ValueShape::kCidr: return {"a CIDR (e.g. 10.0.0.0/16)", 43};
    case ValueShape::kWord: return {"a word (letters, digits and . _ -)", 253};
    case ValueShape::kWordList: return {"words separated by commas (letters, digits and . _ -)", 1024};
  }
  return {"a value", 0};
}

bool hasShape(std::string_view value, ValueShape shape) {
  if (value.empty()) return false;
  switch (shape) {
    case ValueShape::kImageReference: return alnum(value.front()) && made_of(value, "._-/:@");
    case ValueShape::kResourceName: return alnum(value.front()) && made_of(value, "._-/");
    case ValueShape::kDnsLabel:
      return lowerAlnum(value.front()) && lowerAlnum(value.back()) && made_of(value, "-", true);
    case ValueShape::kDnsSubdomain:
      return lowerAlnum(value.front()) && lowerAlnum(value.back()) && made_of(value, ".-", true);
    case ValueShape::kHcaEntry: return made_of(value, "_.:=^-");
    case ValueShape::kQuantity: return quantity(value);
    case ValueShape::kPciAddress: return made_of(value, ":.");
    case ValueShape::kCidr: return made_of(value, "./:");
    case ValueShape::kWord: return made_of(value, "._-");
    case ValueShape::kWordList: return made_of(value, "._-,");
  }
  return false;
}

}  // namespace

std::string printable(std::string_view value) {
  std::string out;
  for (unsigned char c : value) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

Status checkValue(std::string_view field, std::string_view value, ValueShape shape) {
  ShapeRule rule = ruleOf(shape);
  if (value.size() <= rule.max_size && hasShape(value, shape)) return okStatus();
  std::string shown = printable(value.substr(0, 80));
  if (value.size() > 80) shown += "...";
  return makeError(
      ErrorCode::kUsage,
      std::string(field) + ": expected " + rule.expected + ", found '" + shown + "'" +
          (value.size() > rule.max_size ? " (" + std::to_string(value.size()) + " bytes, at most " +
                                              std::to_string(rule.max_size) + ")"
                                        : ""));
}

Status checkValues(std::string_view field, const std::vector<std::string>& values, ValueShape shape) {
  for (const std::string& value : values)
    if (auto status = checkValue(field, value, shape); !status) return status;
  return okStatus();
}

}  // namespace railkit::k8s::render
