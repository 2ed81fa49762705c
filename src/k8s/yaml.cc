#include "k8s/yaml.h"

#include <libfyaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace railkit::k8s {
namespace {

const std::string kEmpty;

// Depth bound: manifests are shallow; this keeps hostile input from
// exhausting the stack in later recursive walks.
constexpr size_t kMaxDepth = 200;

struct Frame {
  YamlNode node;
  std::string path;
  bool have_key = false;  // kMap: a key was read, the value is next
  std::string key;
  long key_line = 0;
};

std::string childPath(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

// libfyaml reports "SOURCE:LINE:COLUMN: error: MESSAGE" followed by the
// source line and a caret; keep the line number and the message.
std::string diagnosticMessage(const std::string& text, long* line) {
  size_t marker = text.find(": error: ");
  if (marker == std::string::npos) return "syntax error";
  size_t end = text.find('\n', marker);
  std::string message =
      text.substr(marker + 9, end == std::string::npos ? std::string::npos : end - marker - 9);
  // Walk back over ":COLUMN" and ":LINE".
  size_t column_colon = text.rfind(':', marker - 1);
  if (column_colon != std::string::npos && column_colon > 0) {
    size_t line_colon = text.rfind(':', column_colon - 1);
    if (line_colon != std::string::npos) {
      long value = std::strtol(text.c_str() + line_colon + 1, nullptr, 10);
      if (value > 0) *line = value;
    }
  }
  return message;
}

class Builder {
 public:
  explicit Builder(YamlStream& out) : out_(out) {}

  // Returns false when the input nests deeper than we accept.
  bool onEvent(fy_event* event) {
    const fy_mark* mark = fy_event_start_mark(event);
    long line = mark != nullptr ? mark->line + 1 : 0;
    switch (event->type) {
      case FYET_DOCUMENT_START:
        stack_.clear();
        doc_line_ = line;
        return true;
      case FYET_DOCUMENT_END: return true;
      case FYET_MAPPING_START:
      case FYET_SEQUENCE_START: {
        if (stack_.size() >= kMaxDepth) return false;
        Frame frame;
        frame.node.type = event->type == FYET_MAPPING_START ? YamlNode::Type::kMap : YamlNode::Type::kSeq;
        frame.node.line = line;
        frame.path = nextPath();
        stack_.push_back(std::move(frame));
        return true;
      }
      case FYET_MAPPING_END:
      case FYET_SEQUENCE_END: {
        if (stack_.empty()) return true;
        YamlNode node = std::move(stack_.back().node);
        stack_.pop_back();
        add(std::move(node));
        return true;
      }
      case FYET_SCALAR:
      case FYET_ALIAS: {
        YamlNode node;
        node.line = line;
        fy_token* token = event->type == FYET_SCALAR ? event->scalar.value : event->alias.anchor;
        size_t length = 0;
        const char* text = token != nullptr ? fy_token_get_text(token, &length) : nullptr;
        if (text != nullptr) node.value.assign(text, length);
        if (event->type == FYET_SCALAR) {
          fy_scalar_style style = fy_token_scalar_style(token);
          node.quoted = style != FYSS_PLAIN && style != FYSS_ANY;
          node.type = (!node.quoted && (node.value.empty() || node.value == "~" || node.value == "null"))
                          ? YamlNode::Type::kNull
                          : YamlNode::Type::kScalar;
        } else {
          node.type = YamlNode::Type::kNull;  // aliases are not followed
        }
        add(std::move(node));
        return true;
      }
      default: return true;
    }
  }

 private:
  std::string nextPath() const {
    if (stack_.empty()) return "";
    const Frame& top = stack_.back();
    if (top.node.isMap()) return top.have_key ? childPath(top.path, top.key) : top.path;
    return top.path + "[" + std::to_string(top.node.items.size()) + "]";
  }

  void add(YamlNode node) {
    if (stack_.empty()) {
      out_.documents.push_back(YamlDocument{std::move(node), doc_line_});
      return;
    }
    Frame& top = stack_.back();
    if (top.node.isSeq()) {
      top.node.items.push_back(std::move(node));
      return;
    }
    if (!top.have_key) {
      top.have_key = true;
      top.key =
          node.isScalar() || node.type == YamlNode::Type::kNull ? node.value : std::string("<complex key>");
      top.key_line = node.line;
      return;
    }
    top.have_key = false;
    for (size_t i = 0; i < top.node.entries.size(); ++i) {
      if (top.node.entries[i].first == top.key) {
        out_.duplicates.push_back(DuplicateKey{top.key, top.path, top.node.key_lines[i], top.key_line});
        top.node.entries[i].second = std::move(node);  // the last one wins, as in the API server
        top.node.key_lines[i] = top.key_line;
        return;
      }
    }
    top.node.entries.push_back(YamlEntry{top.key, std::move(node)});
    top.node.key_lines.push_back(top.key_line);
  }

  YamlStream& out_;
  std::vector<Frame> stack_;
  long doc_line_ = 0;
};

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

// Offset of the first byte that does not start or continue a well-formed
// UTF-8 sequence, or npos. YAML text is Unicode, and libfyaml 0.8 can loop
// forever on a directive line holding such a byte (found by k8s_yaml_fuzz).
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
    size_t line =
        1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n'));
    size_t line_start = bad == 0 ? std::string_view::npos : text.rfind('\n', bad - 1);
    size_t column = line_start == std::string_view::npos ? bad + 1 : bad - line_start;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
    return makeError(ErrorCode::kInvalidInput,
                     where + ":" + std::to_string(line) + ": not valid YAML: byte " + hex + " at column " +
                         std::to_string(column) + " is not UTF-8 (YAML text must be Unicode)");
  }
  // A diagnostic object that collects errors and prints nothing: the one
  // line the user sees is ours.
  fy_diag_cfg diag_cfg;
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.colorize = false;
  std::string diag_text;
  diag_cfg.user = &diag_text;
  diag_cfg.output_fn = [](fy_diag*, void* user, const char* buf, size_t len) {
    auto* text = static_cast<std::string*>(user);
    if (text->size() < 4096) text->append(buf, len);
  };
  fy_diag* diag = fy_diag_create(&diag_cfg);
  fy_parse_cfg cfg{};
  cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_ALLOW_DUPLICATE_KEYS);
  cfg.diag = diag;
  fy_parser* parser = fy_parser_create(&cfg);
  if (diag != nullptr) fy_diag_unref(diag);  // the parser holds its own reference
  if (parser == nullptr) return makeError(ErrorCode::kInternal, "cannot create YAML parser");
  YamlStream stream;
  if (fy_parser_set_string(parser, text.data(), text.size()) != 0) {
    fy_parser_destroy(parser);
    return makeError(ErrorCode::kInvalidInput, where + ":1: cannot read input");
  }
  Builder builder(stream);
  bool too_deep = false;
  long last_line = 1;
  while (fy_event* event = fy_parser_parse(parser)) {
    if (const fy_mark* mark = fy_event_start_mark(event)) last_line = mark->line + 1;
    bool ok = builder.onEvent(event);
    fy_parser_event_free(parser, event);
    if (!ok) {
      too_deep = true;
      break;
    }
  }
  if (too_deep) {
    fy_parser_destroy(parser);
    return makeError(ErrorCode::kInvalidInput, where + ":" + std::to_string(last_line) +
                                                   ": nesting deeper than " + std::to_string(kMaxDepth));
  }
  if (fy_parser_get_stream_error(parser)) {
    long line = last_line;
    std::string message = diagnosticMessage(diag_text, &line);
    fy_parser_destroy(parser);
    return makeError(ErrorCode::kInvalidInput,
                     where + ":" + std::to_string(line) + ": not valid YAML: " + message);
  }
  fy_parser_destroy(parser);
  return stream;
}

}  // namespace railkit::k8s
