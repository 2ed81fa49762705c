// GCC 12 reports a false -Wrestrict inside std::string concatenation (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "k8s/render/emit.h"

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
    for (const auto& [key, child] : value.items()) {
      out += pad + nlohmann::json(key).dump() + ":";
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
