#include "core/ipv4.h"

namespace railkit {

std::optional<uint32_t> parseIpv4Address(std::string_view text) {
  uint32_t out = 0;
  int parts = 0;
  size_t i = 0;
  while (parts < 4) {
    size_t start = i;
    uint32_t value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 3)
      value = value * 10 + static_cast<uint32_t>(text[i++] - '0');
    // No empty part, no leading zero (010 is octal to some readers), no part above 255.
    if (i == start || value > 255 || (text[start] == '0' && i - start > 1)) return std::nullopt;
    out = (out << 8) | value;
    if (++parts < 4) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return out;
}

std::optional<Ipv4Net> parseIpv4Net(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto address = parseIpv4Address(text.substr(0, slash));
  std::string_view prefix = text.substr(slash + 1);
  if (!address || prefix.empty() || prefix.size() > 2) return std::nullopt;
  int value = 0;
  for (char c : prefix) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > 32 || (prefix.size() == 2 && prefix[0] == '0')) return std::nullopt;
  return Ipv4Net{*address, value};
}

std::string ipv4Text(uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 255) + "." +
         std::to_string((address >> 8) & 255) + "." + std::to_string(address & 255);
}

std::string ipv4NetText(const Ipv4Net& net) {
  return ipv4Text(net.network()) + "/" + std::to_string(net.prefix);
}

}  // namespace railkit
