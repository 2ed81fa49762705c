#include "exporter/counters.h"

#include "core/strings.h"
#include "sys/paths.h"

namespace railkit::exporter {
namespace {

// Counter files hold one decimal number; anything longer is not a counter.
constexpr size_t kMaxCounterBytes = 64;

// `lifespan` in hw_counters is how long (ms) the driver caches the values.
constexpr const char* kHwNotCounters[] = {"lifespan"};

class Reader {
 public:
  Reader(const FileRoot& root, PortCounters& out) : root_(root), out_(out) {}

  // The value of `dir/name`, or nullopt (counted) when it cannot be had.
  std::optional<uint64_t> read(const std::string& dir, std::string_view name) {
    auto text = root_.readText(joinPath(dir, name), kMaxCounterBytes + 1);
    std::optional<uint64_t> value;
    if (text && text->size() <= kMaxCounterBytes) value = parseCounterValue(*text);
    if (!value) ++out_.read_errors;
    return value;
  }

 private:
  const FileRoot& root_;
  PortCounters& out_;
};

bool isSetting(const std::string& name) {
  for (const char* s : kHwNotCounters)
    if (name == s) return true;
  return false;
}

}  // namespace

std::optional<uint64_t> parseCounterValue(std::string_view text) {
  std::string_view t = trim(text);
  if (t.empty()) return std::nullopt;
  for (char c : t)
    if (c < '0' || c > '9') return std::nullopt;
  return parseUint(t);
}

PortCounters readPortCounters(const FileRoot& root, const std::string& device, int port) {
  PortCounters out;
  Reader reader(root, out);
  std::string port_dir =
      joinPath(joinPath(joinPath(sys::paths::kClassInfiniband, device), "ports"), std::to_string(port));
  std::string counters = joinPath(port_dir, "counters");
  std::string ext = joinPath(port_dir, "counters_ext");
  bool have_counters = root.isDirectory(counters);
  bool have_ext = root.isDirectory(ext);
  if (have_ext) {
    out.transmitted_words = reader.read(ext, "port_xmit_data_64");
    out.received_words = reader.read(ext, "port_rcv_data_64");
  } else if (have_counters) {
    out.transmitted_words = reader.read(counters, "port_xmit_data");
    out.received_words = reader.read(counters, "port_rcv_data");
  }
  if (have_counters) {
    out.symbol_errors = reader.read(counters, "symbol_error");
    out.link_downed = reader.read(counters, "link_downed");
    out.receive_errors = reader.read(counters, "port_rcv_errors");
    out.transmit_wait = reader.read(counters, "port_xmit_wait");
  }
  std::string hw_dir = joinPath(port_dir, "hw_counters");
  if (auto names = root.listDir(hw_dir)) {
    for (const auto& name : *names) {
      if (isSetting(name)) continue;
      if (auto value = reader.read(hw_dir, name)) out.hw[name] = *value;
    }
  }
  return out;
}

}  // namespace railkit::exporter
