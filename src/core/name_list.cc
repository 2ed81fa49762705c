#include "core/name_list.h"

#include "core/strings.h"

namespace railkit {

NameListSpec parseNameList(std::string_view text, bool allow_ports) {
  NameListSpec spec;
  text = trim(text);
  if (!text.empty() && text.front() == '^') {
    spec.exclude = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && text.front() == '=') {
    spec.exact = true;
    text.remove_prefix(1);
  }
  for (auto item : split(text, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    NameListEntry entry;
    auto colon = item.rfind(':');
    if (allow_ports && colon != std::string_view::npos) {
      auto port = parseUint(item.substr(colon + 1));
      if (port && *port < 1000) {
        entry.port = static_cast<int>(*port);
        item = item.substr(0, colon);
      }
    }
    entry.name = std::string(item);
    spec.entries.push_back(std::move(entry));
  }
  return spec;
}

bool nameListSelects(const NameListSpec& spec, std::string_view name, std::optional<int> port) {
  bool listed = false;
  for (const auto& entry : spec.entries) {
    bool name_ok = spec.exact ? name == entry.name : startsWith(name, entry.name);
    bool port_ok = !entry.port || !port || *entry.port == *port;
    if (name_ok && port_ok) {
      listed = true;
      break;
    }
  }
  return spec.exclude ? !listed : listed;
}

}  // namespace railkit
