// GCC 12 reports a false -Wrestrict inside std::string concatenation (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "k8s/render/emit.h"

#include <algorithm>
#include <cctype>

namespace railkit::k8s::render {
namespace {

bool isBlock(const nlohmann::json& value) {
  return (value.is_object() || value.is_array()) && !value.empty();
}

// A scalar as JSON, which YAML 1.2 and 1.1 readers both take as the same
// double-quoted value, every byte outside ASCII escaped (\uXXXX): a YAML
// 1.1 reader (kubectl's go-yaml) folds a raw NEL or line separator inside
// quotes into a space. Bytes that are not UTF-8 cannot reach here from a
// profile or a flag (values.h refuses them); should one, it is replaced
// rather than ending render with an exception.
std::string scalar(const nlohmann::json& value) {
  if (value.is_object()) return "{}";
  if (value.is_array()) return "[]";
  return value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

// A `|` block keeps text as it is only when every line break in it is a
// '\n' for every reader: printable ASCII and newlines, nothing else (a CR,
// a NEL or a line separator ends a line for a YAML 1.1 reader).
bool blockSafe(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); });
}

void emit(const nlohmann::json& value, int indent, std::string& out);

// Keys made of name characters starting with a letter are written plain;
// anything else keeps JSON quotes so no reader re-types it.
std::string key(const std::string& name) {
  bool plain = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) != 0 && name != "true" &&
               name != "false" && name != "null" && name != "yes" && name != "no" && name != "on" &&
               name != "off";
  for (char c : name)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' ||
                      c == '/');
  return plain ? name : nlohmann::json(name).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

// Text after "key:" or "- ".
void emitValue(const nlohmann::json& value, int indent, std::string& out) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.find('\n') != std::string::npos && blockSafe(text) && text.find(" \n") == std::string::npos &&
        text.front() != ' ') {
      out += " |";
      if (text.back() != '\n') out += '-';
      out += '\n';
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find('\n', start);
        std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty()) out.append(static_cast<size_t>(indent + 2), ' ').append(line);
        out += '\n';
        if (end == std::string::npos) break;
        start = end + 1;
      }
      return;
    }
  }
  if (isBlock(value)) {
    out += "\n";
    emit(value, indent + 2, out);
  } else {
    out.append(1, ' ').append(scalar(value)).append(1, '\n');
  }
}

void emit(const nlohmann::json& value, int indent, std::string& out) {
  std::string pad(indent, ' ');
  if (value.is_object()) {
    for (const auto& [name, child] : value.items()) {
      out.append(pad).append(key(name)).append(1, ':');
      emitValue(child, indent, out);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) {
      if (child.is_object() && !child.empty()) {
        // "- " then the first key on the same line, the rest aligned under it.
        std::string nested;
        emit(child, indent + 2, nested);
        out += pad + "- " + nested.substr(indent + 2);
      } else {
        out += pad + "-";
        emitValue(child, indent, out);
      }
    }
  }
}

}  // namespace

std::string emitYaml(const nlohmann::json& value) {
  std::string out;
  if (isBlock(value)) {
    emit(value, 0, out);
  } else {
    out = scalar(value) + "\n";
  }
  return out;
}

}  // namespace railkit::k8s::render
