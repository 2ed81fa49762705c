#pragma once
// The YAML front end. Manifests are read through libyaml's event parser (the
// C library kubectl's go-yaml is a port of, so what kubectl reads is read here)
// and built into a small tree that keeps the line of every node and key, so
// lint can say where a problem is. Duplicate mapping keys are legal to the
// event parser but lost by node APIs (one value silently wins); here every
// duplicate is recorded with both lines before the last value is kept.
// Aliases are followed and merge keys (`<<`) applied, as kubectl does, within
// bounds that refuse alias bombs. JSON input is YAML too, so it goes through
// the same path.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace railkit::k8s {

struct YamlEntry;

struct YamlNode {
  enum class Type { kNull, kScalar, kMap, kSeq };
  Type type = Type::kNull;
  long line = 0;                   // 1-based line of the node's first token
  std::string value;               // scalar text
  bool quoted = false;             // scalar written with quotes (always a string)
  std::vector<YamlEntry> entries;  // kMap, key order kept
  std::vector<long> key_lines;     // kMap, line of each key
  std::vector<YamlNode> items;     // kSeq

  bool isMap() const { return type == Type::kMap; }
  bool isSeq() const { return type == Type::kSeq; }
  bool isScalar() const { return type == Type::kScalar; }
  // Map lookup; nullptr when absent or when this is not a map.
  const YamlNode* get(std::string_view key) const;
  // Follows a chain of map keys.
  const YamlNode* at(std::initializer_list<std::string_view> keys) const;
  // Scalar text, or "" for anything else.
  const std::string& text() const;
};

// A mapping entry (first: key, second: value), declared after YamlNode so
// the vector above holds a complete type once the header is read.
struct YamlEntry {
  std::string first;
  YamlNode second;
};

struct DuplicateKey {
  std::string key;
  std::string path;  // field path of the mapping holding the key
  long first_line = 0;
  long line = 0;  // the repeated occurrence
};

struct YamlDocument {
  YamlNode root;
  long line = 0;  // first line of the document
};

struct YamlStream {
  std::vector<YamlDocument> documents;
  std::vector<DuplicateKey> duplicates;
};

// Parses multi-document YAML (or JSON). `name` is used in error messages,
// which read "NAME:LINE: what was wrong".
Result<YamlStream> parseYaml(std::string_view text, std::string_view name);

}  // namespace railkit::k8s
