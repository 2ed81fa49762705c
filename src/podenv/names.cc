#include "podenv/names.h"

#include "core/strings.h"

namespace railkit::podenv {

namespace {

bool isControl(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

}  // namespace

std::optional<std::string> netdevNameProblem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name == "." || name == "..") return "'.' and '..' are not interface names";
  if (name.size() > 15) return "longer than 15 bytes (IFNAMSIZ)";
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '/' || c == ':' || c == ' ' || (c >= '\t' && c <= '\r'))
      return "contains a character the kernel refuses in interface names ('/', ':' or white space)";
    if (isControl(c)) return "contains a control character";
    if (c == ',') return "contains ',' (NCCL's interface list cannot name it)";
  }
  return std::nullopt;
}

std::optional<std::string> rdmaNameProblem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > 64) return "longer than 64 bytes (IB_DEVICE_NAME_MAX)";
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-';
    if (!ok) return "has a character other than letters, digits, '_', '.' and '-'";
  }
  return std::nullopt;
}

Result<std::vector<std::string>> parseInterfaceList(std::string_view text, std::string_view flag) {
  std::vector<std::string> names;
  for (auto item : split(text, ',')) {
    if (auto problem = netdevNameProblem(item))
      return makeError(ErrorCode::kUsage, std::string(flag) + ": '" + commentSafe(item) +
                                              "' is not an interface name: " + *problem);
    bool seen = false;
    for (const auto& n : names) seen = seen || n == item;
    if (!seen) names.emplace_back(item);
  }
  return names;
}

Result<std::vector<HcaRequest>> parseHcaList(std::string_view text) {
  std::vector<HcaRequest> out;
  for (auto item : split(text, ',')) {
    HcaRequest request;
    std::string_view device = item;
    if (auto colon = item.rfind(':'); colon != std::string_view::npos) {
      device = item.substr(0, colon);
      auto port = parseUint(item.substr(colon + 1));
      if (!port || *port < 1 || *port > 255)
        return makeError(ErrorCode::kUsage,
                         "--hca: '" + commentSafe(item) + "': the port after ':' must be 1..255");
      request.port = static_cast<int>(*port);
    }
    if (auto problem = rdmaNameProblem(device))
      return makeError(ErrorCode::kUsage,
                       "--hca: '" + commentSafe(item) + "' is not an RDMA device name: " + *problem);
    request.device = std::string(device);
    out.push_back(std::move(request));
  }
  return out;
}

std::string commentSafe(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (isControl(static_cast<unsigned char>(c))) c = '?';
  return out;
}

}  // namespace railkit::podenv
