#pragma once
// Name resolution for hostfile checks. A Resolver looks host names up and
// says, per name, its addresses or why it has none. Lookups are started and
// their answers collected separately, so a caller can ask about many names at
// once and stop waiting at its own deadline: a dead nameserver makes one
// getaddrinfo() block for timeout x attempts x families (easily 10 s and
// more), and a wait loop that asks one name after another would overrun any
// deadline by minutes. Implementations:
//  - SystemResolver asks the C library with getaddrinfo_a, i.e. whatever the
//    pod's /etc/nsswitch.conf, /etc/hosts and cluster DNS say, every name in
//    parallel (glibc runs up to 20 lookups at a time). The CLI default.
//  - HostsFileResolver looks names up in one hosts(5)-format file chosen by
//    the caller, and nothing else. Tests use it so that no test ever asks the
//    machine's DNS server; users can use it for air-gapped dry runs. It
//    re-reads the file when it changes, so a wait loop sees names appear.
// Temporary failures (DNS not answering yet) and unknown names are both "not
// resolvable yet" for the wait loop; the error code tells them apart.

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::doctor {

using Addresses = std::vector<std::string>;

// The answer to one lookup started with Resolver::start(id, ...).
struct Answer {
  size_t id = 0;
  Result<Addresses> addresses;  // at least one numeric address, or why not
};

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Starts looking `name` up; the answer comes back from wait() under `id`.
  // Never blocks on the network.
  virtual void start(size_t id, const std::string& name) = 0;
  // Waits at most `wait` for answers; returns as soon as there is at least
  // one, with every answer that arrived since the last call (may be none).
  // Lookups still running when the resolver is destroyed are abandoned.
  virtual std::vector<Answer> wait(std::chrono::milliseconds wait) = 0;
};

// A resolver that answers at once (files, fakes): start() calls resolve().
class ImmediateResolver : public Resolver {
 public:
  // The addresses of `name` (numeric, at least one), or kNotFound for a name
  // that does not exist, kUnavailable for a temporary failure.
  virtual Result<Addresses> resolve(const std::string& name) = 0;
  void start(size_t id, const std::string& name) override;
  std::vector<Answer> wait(std::chrono::milliseconds wait) override;

 private:
  std::vector<Answer> ready_;
};

// name (lower case) -> addresses in file order.
using HostsTable = std::map<std::string, std::vector<std::string>, std::less<>>;

// Parses hosts(5) text: "ADDRESS NAME [ALIAS...]", '#' comments. Lines whose
// first field is not an IPv4/IPv6 address are skipped.
HostsTable parseHostsText(std::string_view text);

// Largest hosts file read (a hosts file for 100k pods is ~8 MiB).
inline constexpr size_t kMaxHostsFileBytes = 16u << 20;

class HostsFileResolver : public ImmediateResolver {
 public:
  // Fails when the file cannot be read now: kNotFound when absent,
  // kInvalidInput when it is not a regular file (FIFO, device, directory) or
  // larger than kMaxHostsFileBytes.
  static Result<std::unique_ptr<HostsFileResolver>> open(const std::filesystem::path& path);

  Result<Addresses> resolve(const std::string& name) override;

 private:
  explicit HostsFileResolver(std::filesystem::path path) : path_(std::move(path)) {}
  Status reloadIfChanged();

  std::filesystem::path path_;
  HostsTable table_;
  bool loaded_ = false;
  // What the file looked like when last read: a change in any re-reads it.
  ino_t ino_ = 0;
  off_t size_ = 0;
  timespec mtime_{};
};

class SystemResolver : public Resolver {
 public:
  SystemResolver();  // out of line: Request is complete only in resolver.cc
  SystemResolver(const SystemResolver&) = delete;
  SystemResolver& operator=(const SystemResolver&) = delete;
  ~SystemResolver() override;

  void start(size_t id, const std::string& name) override;
  std::vector<Answer> wait(std::chrono::milliseconds wait) override;

 private:
  struct Request;  // one getaddrinfo_a request (gaicb and what it points to)
  std::vector<Answer> takeFinished();

  std::vector<std::unique_ptr<Request>> running_;
  std::vector<Answer> failed_to_start_;
};

// The resolver the CLI uses: HostsFileResolver on `hosts_file` when it is not
// empty, else SystemResolver.
Result<std::unique_ptr<Resolver>> makeResolver(const std::string& hosts_file);

}  // namespace railkit::doctor
