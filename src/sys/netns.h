#pragma once
// Network namespaces of the processes on a node, and a way to run code inside
// one of them. `exporter --pods` reads each pod's RDMA devices from inside the
// pod's network namespace (sys/rdma_netlink.h), because with ib_core's
// exclusive netns mode a device moved into a pod is visible only there.
//
// The list comes from <root>/proc/<pid>/ns/net links ("net:[4026532281]"):
// with --root /host and the host's /proc mounted at /host/proc it is the
// node's; in tests it is a fixture tree. Entering a namespace needs the live
// file and CAP_SYS_ADMIN, and happens on a short-lived thread of its own:
// setns() changes only the calling thread, so no other thread (the HTTP
// server, the refresher) ever leaves the exporter's namespace.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/file_root.h"
#include "core/result.h"

namespace railkit::sys {

struct NetnsEntry {
  uint64_t inode = 0;   // the namespace's identity, as `ls -l /proc/PID/ns/net` shows it
  int pid = 0;          // the lowest process in it (a pod's pause process)
  std::string pod_uid;  // from that process's cgroup path; "" when not a pod
};

// 4026532281 for "net:[4026532281]"; nullopt for anything else.
std::optional<uint64_t> parseNetnsLink(std::string_view target);

// The Kubernetes pod UID in a /proc/PID/cgroup text: kubelet names the pod's
// cgroup "pod<UID>" (cgroupfs driver) or "kubepods-...-pod<UID with _>.slice"
// (systemd driver). "" when there is none.
std::string podUidFromCgroup(std::string_view cgroup);

// Distinct network namespaces of the processes under the root's /proc, in
// order of their lowest pid, at most `limit` of them. Processes that vanish
// or cannot be read while listing are skipped.
std::vector<NetnsEntry> listProcessNetns(const FileRoot& root, size_t limit);

// The inode of the calling thread's own network namespace.
Result<uint64_t> ownNetnsInode();

// Runs `body` on a new thread that first enters the network namespace of
// `pid` under the root (its ns/net file on disk), and waits for it.
// kIo (with the reason) when the file cannot be opened or setns() refuses.
Status runInNetnsOf(const FileRoot& root, int pid, const std::function<void()>& body);

}  // namespace railkit::sys
