#pragma once
// Name resolution for hostfile checks. A Resolver turns a host name into its
// addresses or says why it cannot. Two implementations:
//  - SystemResolver asks the C library (getaddrinfo), i.e. whatever the pod's
//    /etc/nsswitch.conf, /etc/hosts and cluster DNS say. The CLI default.
//  - HostsFileResolver looks names up in one hosts(5)-format file chosen by
//    the caller, and nothing else. Tests use it so that no test ever asks the
//    machine's DNS server; users can use it for air-gapped dry runs. It
//    re-reads the file when it changes, so a wait loop sees names appear.
// Temporary failures (DNS not answering yet) and unknown names are both "not
// resolvable yet" for the wait loop; the error code tells them apart.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::doctor {

class Resolver {
 public:
  virtual ~Resolver() = default;
  // The addresses of `name` (numeric, at least one), or kNotFound for a name
  // that does not exist, kUnavailable for a temporary failure.
  virtual Result<std::vector<std::string>> resolve(const std::string& name) = 0;
};

// name (lower case) -> addresses in file order.
using HostsTable = std::map<std::string, std::vector<std::string>, std::less<>>;

// Parses hosts(5) text: "ADDRESS NAME [ALIAS...]", '#' comments. Lines whose
// first field is not an IPv4/IPv6 address are skipped.
HostsTable parseHostsText(std::string_view text);

class HostsFileResolver : public Resolver {
 public:
  // Fails (kNotFound/kIo) when the file cannot be read now.
  static Result<std::unique_ptr<HostsFileResolver>> open(const std::filesystem::path& path);

  Result<std::vector<std::string>> resolve(const std::string& name) override;

 private:
  explicit HostsFileResolver(std::filesystem::path path) : path_(std::move(path)) {}
  Status reloadIfChanged();

  std::filesystem::path path_;
  HostsTable table_;
  std::optional<std::filesystem::file_time_type> mtime_;
  uintmax_t size_ = 0;
};

class SystemResolver : public Resolver {
 public:
  Result<std::vector<std::string>> resolve(const std::string& name) override;
};

// The resolver the CLI uses: HostsFileResolver on `hosts_file` when it is not
// empty, else SystemResolver.
Result<std::unique_ptr<Resolver>> makeResolver(const std::string& hosts_file);

}  // namespace railkit::doctor
