// Resolvers for hostfile checks (see resolver.h).
#include "doctor/resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>

#include "core/input_file.h"
#include "core/strings.h"

namespace railkit::doctor {
namespace {

bool isAddress(const std::string& token) {
  unsigned char buf[16];
  std::string addr = token.substr(0, token.find('%'));  // fe80::1%eth0
  return inet_pton(AF_INET, addr.c_str(), buf) == 1 || inet_pton(AF_INET6, addr.c_str(), buf) == 1;
}

std::string normalise(std::string_view name) {
  std::string out = toLower(name);
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

// getaddrinfo's answer as numeric addresses, or its error as a code.
Result<Addresses> fromGai(int rc, const addrinfo* list) {
  if (rc != 0) {
    const ErrorCode code = (rc == EAI_NONAME
#ifdef EAI_NODATA
                            || rc == EAI_NODATA
#endif
                            )
                               ? ErrorCode::kNotFound
                               : ErrorCode::kUnavailable;
    return makeError(code, gai_strerror(rc));
  }
  Addresses out;
  for (const addrinfo* ai = list; ai; ai = ai->ai_next) {
    char host[NI_MAXHOST];
    if (getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
      continue;
    if (std::find(out.begin(), out.end(), host) == out.end()) out.emplace_back(host);
  }
  if (out.empty()) return makeError(ErrorCode::kNotFound, "no address");
  return out;
}

}  // namespace

void ImmediateResolver::start(size_t id, const std::string& name) {
  ready_.push_back(Answer{id, resolve(name)});
}

std::vector<Answer> ImmediateResolver::wait(std::chrono::milliseconds) {
  return std::exchange(ready_, {});
}

HostsTable parseHostsText(std::string_view text) {
  HostsTable table;
  for (auto line : split(text, '\n')) {
    line = line.substr(0, line.find('#'));
    auto fields = splitWhitespace(line);
    if (fields.size() < 2) continue;
    std::string addr(fields[0]);
    if (!isAddress(addr)) continue;
    for (size_t i = 1; i < fields.size(); ++i) {
      auto& addrs = table[normalise(fields[i])];
      if (std::find(addrs.begin(), addrs.end(), addr) == addrs.end()) addrs.push_back(addr);
    }
  }
  return table;
}

Result<std::unique_ptr<HostsFileResolver>> HostsFileResolver::open(const std::filesystem::path& path) {
  std::unique_ptr<HostsFileResolver> resolver(new HostsFileResolver(path));
  auto st = resolver->reloadIfChanged();
  if (!st) return tl::unexpected(st.error());
  return resolver;
}

Status HostsFileResolver::reloadIfChanged() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && loaded_ && S_ISREG(st.st_mode) && st.st_ino == ino_ &&
      st.st_size == size_ && st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec)
    return okStatus();
  // Whatever the path is now (gone, a FIFO, /dev/zero, huge), the capped,
  // type-checked read says so at once instead of blocking or filling memory.
  auto text = readInputFile(path_.string(), InputFileOptions{"hosts file", kMaxHostsFileBytes, false});
  if (!text) {
    loaded_ = false;  // whatever comes back at this path is read afresh
    return tl::unexpected(text.error());
  }
  table_ = parseHostsText(*text);
  loaded_ = true;
  ino_ = st.st_ino;
  size_ = st.st_size;
  mtime_ = st.st_mtim;
  return okStatus();
}

Result<Addresses> HostsFileResolver::resolve(const std::string& name) {
  // An address resolves to itself, as getaddrinfo does, without any lookup.
  if (isAddress(name)) return Addresses{name};
  if (auto st = reloadIfChanged(); !st)
    return makeError(ErrorCode::kUnavailable, st.error().message);  // the file may come back
  auto it = table_.find(normalise(name));
  if (it == table_.end()) return makeError(ErrorCode::kNotFound, "not in hosts file " + path_.string());
  return it->second;
}

// gai_error/gai_cancel name the request by the gaicb's address,
// and glibc's worker thread writes through ar_name/ar_request/ar_result, so
// all of it lives in one heap block that never moves.
struct SystemResolver::Request {
  size_t id = 0;
  std::string name;
  addrinfo hints{};
  gaicb cb{};
};

void SystemResolver::start(size_t id, const std::string& name) {
  auto req = std::make_unique<Request>();
  req->id = id;
  req->name = name;
  req->hints.ai_family = AF_UNSPEC;
  req->hints.ai_socktype = SOCK_STREAM;
  req->cb.ar_name = req->name.c_str();
  req->cb.ar_request = &req->hints;
  gaicb* list[] = {&req->cb};
  int rc = getaddrinfo_a(GAI_NOWAIT, list, 1, nullptr);
  if (rc != 0) {
    failed_to_start_.push_back(Answer{id, makeError(ErrorCode::kUnavailable, gai_strerror(rc))});
    return;
  }
  running_.push_back(std::move(req));
}

std::vector<Answer> SystemResolver::takeFinished() {
  std::vector<Answer> out = std::exchange(failed_to_start_, {});
  auto still = running_.begin();
  for (auto& req : running_) {
    int rc = gai_error(&req->cb);
    if (rc == EAI_INPROGRESS) {
      *still++ = std::move(req);
      continue;
    }
    out.push_back(Answer{req->id, fromGai(rc, req->cb.ar_result)});
    if (req->cb.ar_result) freeaddrinfo(req->cb.ar_result);
  }
  running_.erase(still, running_.end());
  return out;
}

std::vector<Answer> SystemResolver::wait(std::chrono::milliseconds wait) {
  // Polls gai_error instead of blocking in gai_suspend. glibc's gai_suspend
  // keeps its wait list on the caller's stack and, when it wakes at its
  // timeout, unlinks only the requests still marked EAI_INPROGRESS; the
  // worker thread marks a request done before it takes the lock and walks
  // that list, so a request finishing at the timeout makes the worker write
  // to a stack frame that is gone (seen as a crash in the worker thread of
  // doctor_hostfile_tests under load). Requests started with GAI_NOWAIT and
  // no sigevent have no wait list at all. A few milliseconds of latency is
  // nothing next to a DNS answer.
  constexpr auto kPollInterval = std::chrono::milliseconds(5);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto out = takeFinished();
    if (!out.empty() || running_.empty()) return out;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return out;
    std::this_thread::sleep_for(std::min(left, kPollInterval));
  }
}

SystemResolver::SystemResolver() = default;

SystemResolver::~SystemResolver() {
  for (auto& req : running_) {
    int rc = gai_cancel(&req->cb);
    if (rc == EAI_ALLDONE) {
      if (req->cb.ar_result) freeaddrinfo(req->cb.ar_result);
    } else if (rc == EAI_NOTCANCELED) {
      // A glibc thread is inside getaddrinfo for it and will write to it when
      // the nameserver gives up; freeing it now would be a use after free.
      // Abandoned on purpose: this happens only at a deadline, just before
      // the command exits.
      (void)req.release();
    }
  }
}

Result<std::unique_ptr<Resolver>> makeResolver(const std::string& hosts_file) {
  if (hosts_file.empty()) return std::unique_ptr<Resolver>(new SystemResolver());
  auto resolver = HostsFileResolver::open(hosts_file);
  if (!resolver) return tl::unexpected(resolver.error());
  return std::unique_ptr<Resolver>(std::move(*resolver));
}

}  // namespace railkit::doctor
