#include "k8s/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

namespace railkit::k8s {
namespace {

const std::string kEmpty;

// Depth bound: manifests are shallow; this keeps hostile input from
// exhausting the stack in later recursive walks. Aliases count with the depth
// of what they stand for.
constexpr size_t kMaxYamlDepth = 200;

// Nodes that aliases and merge keys may copy in one stream. kubectl's reader
// (go-yaml) refuses "excessive aliasing" too; it lets aliases make up 99% of
// a document of up to 400,000 nodes, and a billion-laughs document of a few
// hundred bytes would otherwise grow into gigabytes here.
constexpr size_t kMaxAliasNodes = 400000;

struct Shape {
  size_t nodes = 0;
  size_t height = 0;  // 1 for a scalar
};

// Recursion is bounded: every tree here is at most kMaxYamlDepth deep.
Shape shapeOf(const YamlNode& node) {
  Shape shape{1, 1};
  auto add = [&shape](const YamlNode& child) {
    Shape inner = shapeOf(child);
    shape.nodes += inner.nodes;
    shape.height = std::max(shape.height, inner.height + 1);
  };
  for (const YamlEntry& entry : node.entries) add(entry.second);
  for (const YamlNode& item : node.items) add(item);
  return shape;
}

struct Anchor {
  YamlNode node;
  Shape shape;
};

struct Frame {
  YamlNode node;
  std::string path;
  std::string anchor;     // the collection's anchor, recorded when it ends
  bool have_key = false;  // kMap: a key was read, the value is next
  std::string key;
  bool key_is_merge = false;  // the key is a plain `<<`
  long key_line = 0;
  std::vector<YamlNode> merges;  // kMap: values of `<<` keys, applied at the end
  // kMap: entry of each key, so that a mapping of many keys is not checked
  // for duplicates in quadratic time.
  std::unordered_map<std::string, size_t> index;
};

std::string childPath(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

std::string text(const yaml_char_t* value) {
  return value != nullptr ? std::string(reinterpret_cast<const char*>(value)) : std::string();
}

// The plain scalars YAML 1.1 (and so kubectl) reads as null.
bool isNullScalar(const std::string& value) {
  return value.empty() || value == "~" || value == "null" || value == "Null" || value == "NULL";
}

// Builds the node tree from libyaml's events. Duplicate keys are legal to the
// event parser; each is recorded with both lines before the last value wins.
class Builder {
 public:
  explicit Builder(YamlStream& out) : out_(out) {}

  // False when the input is refused; error() then says why, errorLine() where.
  bool onEvent(const yaml_event_t& event);
  const std::string& error() const { return error_; }
  long errorLine() const { return error_line_; }

 private:
  bool fail(long line, std::string message) {
    error_line_ = line;
    error_ = std::move(message);
    return false;
  }
  bool openCollection(const yaml_event_t& event, long line);
  bool closeCollection();
  bool onScalar(const yaml_event_t& event, long line);
  bool onAlias(const yaml_event_t& event, long line);
  bool applyMerges(Frame& frame);
  bool mergeFrom(Frame& frame, const YamlNode& source);
  bool charge(size_t nodes, long line);
  void remember(const std::string& anchor, const YamlNode& node);
  std::string nextPath() const;
  // False when the node cannot be a mapping key, as kubectl reads keys.
  bool add(YamlNode node, bool is_merge_key = false);

  YamlStream& out_;
  std::vector<Frame> stack_;
  std::map<std::string, Anchor> anchors_;  // this document's, by name
  size_t alias_nodes_ = 0;
  long doc_line_ = 0;
  std::string error_;
  long error_line_ = 0;
};

bool Builder::onEvent(const yaml_event_t& event) {
  long line = static_cast<long>(event.start_mark.line) + 1;
  switch (event.type) {
    case YAML_DOCUMENT_START_EVENT:
      stack_.clear();
      anchors_.clear();  // anchors do not reach across documents
      doc_line_ = line;
      return true;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: return openCollection(event, line);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT: return closeCollection();
    case YAML_SCALAR_EVENT: return onScalar(event, line);
    case YAML_ALIAS_EVENT: return onAlias(event, line);
    default: return true;
  }
}

bool Builder::openCollection(const yaml_event_t& event, long line) {
  if (stack_.size() >= kMaxYamlDepth)
    return fail(line, "nesting deeper than " + std::to_string(kMaxYamlDepth));
  Frame frame;
  bool is_map = event.type == YAML_MAPPING_START_EVENT;
  frame.node.type = is_map ? YamlNode::Type::kMap : YamlNode::Type::kSeq;
  frame.node.line = line;
  frame.path = nextPath();
  frame.anchor = text(is_map ? event.data.mapping_start.anchor : event.data.sequence_start.anchor);
  stack_.push_back(std::move(frame));
  return true;
}

bool Builder::closeCollection() {
  if (stack_.empty()) return true;
  Frame& top = stack_.back();
  if (!top.merges.empty() && !applyMerges(top)) return false;
  YamlNode node = std::move(top.node);
  std::string anchor = std::move(top.anchor);
  stack_.pop_back();
  if (!anchor.empty()) remember(anchor, node);
  return add(std::move(node));
}

bool Builder::onScalar(const yaml_event_t& event, long line) {
  const auto& scalar = event.data.scalar;
  YamlNode node;
  node.line = line;
  node.value.assign(reinterpret_cast<const char*>(scalar.value), scalar.length);
  node.quoted = scalar.style != YAML_PLAIN_SCALAR_STYLE && scalar.style != YAML_ANY_SCALAR_STYLE;
  node.type = !node.quoted && isNullScalar(node.value) ? YamlNode::Type::kNull : YamlNode::Type::kScalar;
  std::string anchor = text(scalar.anchor);
  if (!anchor.empty()) remember(anchor, node);
  bool is_merge_key = !node.quoted && node.value == "<<";
  return add(std::move(node), is_merge_key);
}

// An alias stands for a copy of its anchor's node, as kubectl reads it.
bool Builder::onAlias(const yaml_event_t& event, long line) {
  std::string name = text(event.data.alias.anchor);
  auto found = anchors_.find(name);
  if (found == anchors_.end())
    return fail(line,
                "not valid YAML: alias *" + name + " refers to no anchor &" + name + " defined before it");
  const Anchor& anchor = found->second;
  if (stack_.size() + anchor.shape.height > kMaxYamlDepth)
    return fail(line, "alias *" + name + " nests deeper than " + std::to_string(kMaxYamlDepth));
  if (!charge(anchor.shape.nodes, line)) return false;
  YamlNode copy = anchor.node;
  return add(std::move(copy));
}

bool Builder::charge(size_t nodes, long line) {
  alias_nodes_ += nodes;
  if (alias_nodes_ <= kMaxAliasNodes) return true;
  return fail(line, "aliases expand to more than " + std::to_string(kMaxAliasNodes) +
                        " nodes (excessive aliasing, refused as kubectl refuses it)");
}

void Builder::remember(const std::string& anchor, const YamlNode& node) {
  anchors_[anchor] = Anchor{node, shapeOf(node)};  // a later anchor of the same name wins
}

// Merge keys (`<<: *base`, `<<: [*a, *b]`): keys written in the mapping win,
// then the merged mappings in the order given, as YAML 1.1 and go-yaml read them.
bool Builder::applyMerges(Frame& frame) {
  for (const YamlNode& value : frame.merges) {
    if (value.isMap()) {
      if (!mergeFrom(frame, value)) return false;
      continue;
    }
    bool all_maps = value.isSeq();
    for (const YamlNode& item : value.items) all_maps = all_maps && item.isMap();
    if (!all_maps) {
      const char* found = value.isSeq()      ? "a list holding something else"
                          : value.isScalar() ? "a scalar"
                                             : "nothing";
      return fail(
          value.line,
          std::string(
              "not valid YAML: expected a mapping or a list of mappings after the merge key <<, found ") +
              found);
    }
    for (const YamlNode& item : value.items)
      if (!mergeFrom(frame, item)) return false;
  }
  return true;
}

bool Builder::mergeFrom(Frame& frame, const YamlNode& source) {
  for (size_t i = 0; i < source.entries.size(); ++i) {
    const YamlEntry& entry = source.entries[i];
    if (!frame.index.emplace(entry.first, frame.node.entries.size()).second) continue;  // written or merged
    if (!charge(shapeOf(entry.second).nodes, source.line)) return false;
    frame.node.entries.push_back(entry);
    frame.node.key_lines.push_back(source.key_lines[i]);
  }
  return true;
}

std::string Builder::nextPath() const {
  if (stack_.empty()) return "";
  const Frame& top = stack_.back();
  if (top.node.isMap()) return top.have_key ? childPath(top.path, top.key) : top.path;
  return top.path + "[" + std::to_string(top.node.items.size()) + "]";
}

bool Builder::add(YamlNode node, bool is_merge_key) {
  if (stack_.empty()) {
    out_.documents.push_back(YamlDocument{std::move(node), doc_line_});
    return true;
  }
  Frame& top = stack_.back();
  if (top.node.isSeq()) {
    top.node.items.push_back(std::move(node));
    return true;
  }
  if (!top.have_key) {
    // kubectl turns YAML into JSON, whose keys are strings: a null, list or
    // mapping key makes it refuse the whole file (unsupported map key).
    if (!node.isScalar()) {
      const char* found = node.isMap() ? "a mapping" : node.isSeq() ? "a list" : "null";
      return fail(node.line,
                  std::string("not valid YAML for Kubernetes: expected a text mapping key, found ") + found +
                      " (kubectl refuses the file: unsupported map key)");
    }
    top.have_key = true;
    top.key_is_merge = is_merge_key;
    top.key = node.value;
    top.key_line = node.line;
    return true;
  }
  top.have_key = false;
  if (top.key_is_merge) {
    top.merges.push_back(std::move(node));
    return true;
  }
  auto [found, added] = top.index.emplace(top.key, top.node.entries.size());
  if (!added) {
    size_t i = found->second;
    out_.duplicates.push_back(DuplicateKey{top.key, top.path, top.node.key_lines[i], top.key_line});
    top.node.entries[i].second = std::move(node);  // the last one wins, as in the API server
    top.node.key_lines[i] = top.key_line;
    return true;
  }
  top.node.entries.push_back(YamlEntry{top.key, std::move(node)});
  top.node.key_lines.push_back(top.key_line);
  return true;
}

}  // namespace

const YamlNode* YamlNode::get(std::string_view key) const {
  if (!isMap()) return nullptr;
  for (const auto& [name, value] : entries)
    if (name == key) return &value;
  return nullptr;
}

const YamlNode* YamlNode::at(std::initializer_list<std::string_view> keys) const {
  const YamlNode* node = this;
  for (std::string_view key : keys) {
    node = node->get(key);
    if (node == nullptr) return nullptr;
  }
  return node;
}

const std::string& YamlNode::text() const {
  return isScalar() ? value : kEmpty;
}

namespace {

// 1-based line and column of byte `offset` of `text`.
std::pair<size_t, size_t> lineAndColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line =
      1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
  size_t line_start = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  size_t column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return {line, column};
}

// libyaml's own words for what it expected and found, with where: "PROBLEM at
// column C (while parsing a flow sequence at line L, column C)".
std::string parserProblem(const yaml_parser_t& parser, std::string_view text, long* line) {
  if (parser.error == YAML_READER_ERROR) {
    auto [at_line, column] = lineAndColumn(text, parser.problem_offset);
    *line = static_cast<long>(at_line);
    std::string message = parser.problem != nullptr ? parser.problem : "cannot read the text";
    if (parser.problem_value >= 0) {
      char hex[16];
      std::snprintf(hex, sizeof hex, " (0x%02x)", static_cast<unsigned>(parser.problem_value));
      message += hex;
    }
    return message + " at column " + std::to_string(column);
  }
  *line = static_cast<long>(parser.problem_mark.line) + 1;
  std::string message = parser.problem != nullptr ? parser.problem : "syntax error";
  message += " at column " + std::to_string(parser.problem_mark.column + 1);
  if (parser.context != nullptr)
    message += std::string(" (") + parser.context + " at line " +
               std::to_string(parser.context_mark.line + 1) + ", column " +
               std::to_string(parser.context_mark.column + 1) + ")";
  // The document's top node ended (say, at a line indented less than its
  // first one) and more text follows. kubectl reads the top node and silently
  // drops the rest up to the next `---`: refused here, so nothing is lost.
  if (parser.problem != nullptr && std::strcmp(parser.problem, "did not find expected <document start>") == 0)
    message +=
        "; the document's top node ended before this line (is it indented less than the document's "
        "first line?), and kubectl would silently ignore the text from here to the next '---'";
  return message;
}

// The parser's state, released on every path out.
class Parser {
 public:
  Parser() { ready_ = yaml_parser_initialize(&parser_) != 0; }
  ~Parser() {
    if (ready_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  bool ready() const { return ready_; }
  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_{};
  bool ready_ = false;
};

// Offset of the first byte that does not start or continue a well-formed
// UTF-8 sequence, or npos. YAML text is Unicode, and kubectl refuses such a
// byte too; checked first so that the message can name the byte and column.
size_t firstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c == 0xe0) lo = 0xa0;  // no overlong forms
      if (c == 0xed) hi = 0x9f;  // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + need >= text.size()) return i;  // cut short by the end of the input
    for (size_t k = 1; k <= need; ++k) {
      auto b = static_cast<unsigned char>(text[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf)) return i;
    }
    i += need + 1;
  }
  return std::string_view::npos;
}

}  // namespace

Result<YamlStream> parseYaml(std::string_view text, std::string_view name) {
  std::string where(name);
  if (std::memchr(text.data(), '\0', text.size()) != nullptr)
    return makeError(ErrorCode::kInvalidInput,
                     where + ":1: expected YAML text, found binary data (NUL byte)");
  if (size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos) {
    auto [line, column] = lineAndColumn(text, bad);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    return makeError(ErrorCode::kInvalidInput,
                     where + ":" + std::to_string(line) + ": not valid YAML: byte " + hex + " at column " +
                         std::to_string(column) + " is not UTF-8 (YAML text must be Unicode)");
  }
  Parser parser;
  if (!parser.ready())
    return makeError(ErrorCode::kInternal, "cannot create the YAML parser (out of memory)");
  yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  YamlStream stream;
  Builder builder(stream);
  for (bool done = false; !done;) {
    yaml_event_t event;
    if (yaml_parser_parse(parser.get(), &event) == 0) {
      if (parser.get()->error == YAML_MEMORY_ERROR)
        return makeError(ErrorCode::kInternal, where + ": out of memory while parsing YAML");
      long line = 1;
      std::string problem = parserProblem(*parser.get(), text, &line);
      return makeError(ErrorCode::kInvalidInput,
                       where + ":" + std::to_string(line) + ": not valid YAML: " + problem);
    }
    done = event.type == YAML_STREAM_END_EVENT;
    bool taken = builder.onEvent(event);
    yaml_event_delete(&event);
    if (!taken)
      return makeError(ErrorCode::kInvalidInput,
                       where + ":" + std::to_string(builder.errorLine()) + ": " + builder.error());
  }
  return stream;
}

}  // namespace railkit::k8s
