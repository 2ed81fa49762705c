#include "bench/nccl/nccl_env.h"

#include "core/strings.h"

namespace railkit::bench {

std::vector<std::string> deriveNcclEnv(const Environment& env, const std::string& data_spec,
                                       const std::vector<DataHca>& data_hcas) {
  std::vector<std::string> out;
  auto set = [&](const char* key) {
    auto v = lookup(env, key);
    return v && !v->empty();
  };
  if (!data_spec.empty() && !set("NCCL_SOCKET_IFNAME")) out.push_back("NCCL_SOCKET_IFNAME=" + data_spec);
  if (!data_hcas.empty() && !set("NCCL_IB_HCA")) {
    std::string list;
    for (const auto& h : data_hcas) {
      std::string item = h.device + ":" + std::to_string(h.port);
      if (list.find(item) == std::string::npos) list += (list.empty() ? "" : ",") + item;
    }
    // '=' makes NCCL match the names exactly (mlx5_1 must not select mlx5_10).
    out.push_back("NCCL_IB_HCA==" + list);
  }
  return out;
}

NcclSetup ncclSetup(const std::vector<std::string>& options_env) {
  NcclSetup s;
  std::optional<int> local, ompi, mpich;
  for (const auto& entry : options_env) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string key = entry.substr(0, eq), value = entry.substr(eq + 1);
    auto number = [&]() -> std::optional<int> {
      auto n = parseUint(value);
      if (!n || *n > 4096) return std::nullopt;
      return static_cast<int>(*n);
    };
    if (startsWith(key, "NCCL_")) {
      // A later entry (derived) never overrides an earlier one (the user's).
      bool seen = false;
      for (const auto& kv : s.nccl_env) seen = seen || kv.first == key;
      if (!seen) s.nccl_env.emplace_back(key, value);
    } else if (key == "RAILKIT_NCCL_LIB") {
      s.library_dir = value;
    } else if (key == "LOCAL_RANK") {
      local = number();
    } else if (key == "OMPI_COMM_WORLD_LOCAL_RANK") {
      ompi = number();
    } else if (key == "MPI_LOCALRANKID") {
      mpich = number();
    }
  }
  s.local_rank = local ? local : ompi ? ompi : mpich;
  return s;
}

std::string hexEncode(const char* data, std::size_t bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (std::size_t i = 0; i < bytes; ++i) {
    auto b = static_cast<unsigned char>(data[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

bool hexDecode(std::string_view text, char* out, std::size_t bytes) {
  if (text.size() != bytes * 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < bytes; ++i) {
    int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return true;
}

}  // namespace railkit::bench
