#pragma once
// Every machine path railkit reads, in one place. They are absolute paths
// INSIDE a FileRoot (the live "/" or a --root tree); nothing opens them
// directly. Keeping them here is what lets the layering test prove that no
// other file names /sys, /proc or /dev.

namespace railkit::sys::paths {

inline constexpr const char* kClassInfiniband = "/sys/class/infiniband";
inline constexpr const char* kClassNet = "/sys/class/net";
inline constexpr const char* kBusPciDevices = "/sys/bus/pci/devices";
inline constexpr const char* kModules = "/sys/module";
inline constexpr const char* kIbCoreNetnsMode = "/sys/module/ib_core/parameters/netns_mode";
inline constexpr const char* kDevInfiniband = "/dev/infiniband";
inline constexpr const char* kDevShm = "/dev/shm";
inline constexpr const char* kSelfStatus = "/proc/self/status";
// The running executable, which `install-self` copies: the live process's
// own file, the one path here that is never read under a --root.
inline constexpr const char* kSelfExe = "/proc/self/exe";
inline constexpr const char* kSelfLimits = "/proc/self/limits";
inline constexpr const char* kSelfMountinfo = "/proc/self/mountinfo";
inline constexpr const char* kSelfEnviron = "/proc/self/environ";
// The machine's memory (MemTotal), what a "finite" memlock limit is compared to.
inline constexpr const char* kProcMeminfo = "/proc/meminfo";
// Every process of the root's PID namespace: <kProc>/<pid>/ns/net names its
// network namespace, <kProc>/<pid>/cgroup its pod (exporter --pods).
inline constexpr const char* kProc = "/proc";
// The calling thread's own network namespace (always the live one).
inline constexpr const char* kThreadSelfNetns = "/proc/thread-self/ns/net";
inline constexpr const char* kNvidiaGpus = "/proc/driver/nvidia/gpus";
// The IPv4 routing table of the reader's network namespace (the pod's).
inline constexpr const char* kProcNetRoute = "/proc/net/route";
// Per-interface IPv4 sysctls of the reader's network namespace:
// <kProcSysIpv4Conf>/<if>/rp_filter, arp_ignore, arp_announce ("all" too).
inline constexpr const char* kProcSysIpv4Conf = "/proc/sys/net/ipv4/conf";
// Prefix of resolved PCI device paths.
inline constexpr const char* kDevicesPrefix = "/sys/devices/";

}  // namespace railkit::sys::paths
