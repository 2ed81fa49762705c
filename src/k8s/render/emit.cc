// GCC 12 reports a false -Wrestrict inside std::string concatenation (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "k8s/render/emit.h"

#include <cctype>

namespace railkit::k8s::render {
namespace {

bool isBlock(const nlohmann::json& value) {
  return (value.is_object() || value.is_array()) && !value.empty();
}

std::string scalar(const nlohmann::json& value) {
  if (value.is_object()) return "{}";
  if (value.is_array()) return "[]";
  return value.dump();
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
  return plain ? name : nlohmann::json(name).dump();
}

// Text after "key:" or "- ".
void emitValue(const nlohmann::json& value, int indent, std::string& out) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.find('\n') != std::string::npos && text.find('\t') == std::string::npos &&
        text.find(" \n") == std::string::npos && text.front() != ' ') {
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
