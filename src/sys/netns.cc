// Network namespaces of processes, and running code inside one (see netns.h).
#include "sys/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unordered_set>

#include "core/strings.h"
#include "sys/paths.h"

namespace railkit::sys {
namespace {

constexpr size_t kMaxCgroupBytes = 64 << 10;
constexpr size_t kUidLength = 36;  // 8-4-4-4-12

bool isHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// The UID at `at`, with the systemd driver's '_' turned back into '-'.
std::optional<std::string> uidAt(std::string_view s, size_t at) {
  if (s.size() - at < kUidLength) return std::nullopt;
  std::string uid(s.substr(at, kUidLength));
  for (size_t i = 0; i < kUidLength; ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? (uid[i] != '-' && uid[i] != '_') : !isHex(uid[i])) return std::nullopt;
    if (dash) uid[i] = '-';
  }
  return uid;
}

std::string nsFile(int pid) {
  return joinPath(joinPath(joinPath(paths::kProc, std::to_string(pid)), "ns"), "net");
}

}  // namespace

std::optional<uint64_t> parseNetnsLink(std::string_view target) {
  constexpr std::string_view kPrefix = "net:[";
  if (target.size() < kPrefix.size() + 2 || target.substr(0, kPrefix.size()) != kPrefix ||
      target.back() != ']')
    return std::nullopt;
  std::string_view digits = target.substr(kPrefix.size(), target.size() - kPrefix.size() - 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return parseUint(digits);
}

std::string podUidFromCgroup(std::string_view cgroup) {
  for (size_t at = cgroup.find("pod"); at != std::string_view::npos; at = cgroup.find("pod", at + 1))
    if (auto uid = uidAt(cgroup, at + 3)) return *uid;
  return "";
}

std::vector<NetnsEntry> listProcessNetns(const FileRoot& root, size_t limit) {
  std::vector<NetnsEntry> out;
  auto names = root.listDir(paths::kProc);
  if (!names) return out;
  std::vector<int> pids;
  for (const auto& name : *names)
    if (auto pid = parseUint(name); pid && *pid > 0 && *pid <= 1u << 30)
      pids.push_back(static_cast<int>(*pid));
  std::sort(pids.begin(), pids.end());
  std::unordered_set<uint64_t> seen;
  for (int pid : pids) {
    if (out.size() >= limit) break;
    auto link = root.readLink(nsFile(pid));
    if (!link) continue;
    auto inode = parseNetnsLink(*link);
    if (!inode || !seen.insert(*inode).second) continue;
    NetnsEntry entry{*inode, pid, ""};
    std::string cgroup = joinPath(joinPath(paths::kProc, std::to_string(pid)), "cgroup");
    if (auto text = root.readText(cgroup, kMaxCgroupBytes)) entry.pod_uid = podUidFromCgroup(*text);
    out.push_back(std::move(entry));
  }
  return out;
}

Result<uint64_t> ownNetnsInode() {
  struct stat st {};
  if (::stat(paths::kThreadSelfNetns, &st) != 0)
    return makeError(ErrorCode::kIo, std::string("own network namespace: ") + std::strerror(errno));
  return static_cast<uint64_t>(st.st_ino);
}

Status runInNetnsOf(const FileRoot& root, int pid, const std::function<void()>& body) {
  // The parent directory is resolved inside the root; the last component is
  // the kernel's magic link, which only the kernel can follow.
  std::string ns_dir = joinPath(joinPath(paths::kProc, std::to_string(pid)), "ns");
  std::filesystem::path file = root.diskPath(ns_dir) / "net";
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(ErrorCode::kIo, "open " + file.string() + ": " + std::strerror(errno));
  int setns_errno = 0;
  std::thread worker([&] {
    if (::setns(fd, CLONE_NEWNET) != 0) {
      setns_errno = errno;
      return;
    }
    body();
  });
  worker.join();
  ::close(fd);
  if (setns_errno != 0)
    return makeError(ErrorCode::kIo, "enter the network namespace of pid " + std::to_string(pid) + ": " +
                                         std::strerror(setns_errno));
  return okStatus();
}

}  // namespace railkit::sys
