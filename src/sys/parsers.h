#pragma once
// Pure parsers for the text the kernel prints in sysfs and /proc. Each takes
// the file's text and returns what it means, or nullopt when the text is not
// in the expected format; none of them touches the file system, so each is
// unit-tested and fuzzed on its own.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railkit::sys {

// "400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)", "2.5 Gb/sec (1X SDR)" -> Gb/s.
std::optional<double> parseRateGbps(std::string_view text);

// "4: ACTIVE" -> "ACTIVE", "5: LinkUp" -> "LinkUp"; a bare word is kept.
// Empty when the text is empty.
std::string parseStateName(std::string_view text);

// gid_attrs/types: "IB/RoCE v1", "RoCE v2" -> trimmed; "" for blank.
std::string parseGidType(std::string_view text);

// True for an all-zero GID ("0000:...:0000") or blank text.
bool isZeroGid(std::string_view gid);

struct MemlockLimit {
  bool unlimited = false;
  uint64_t bytes = 0;  // soft limit when finite
};
// "Max locked memory" row of /proc/<pid>/limits (soft limit).
std::optional<MemlockLimit> parseLimitsMemlock(std::string_view limits);

// "MemTotal:       2113200 kB" row of /proc/meminfo, in bytes.
std::optional<uint64_t> parseMeminfoTotalBytes(std::string_view meminfo);

// The code before the colon of a port's state or phys_state file ("5" of
// "5: LinkUp"); nullopt for a bare word or blank text.
std::optional<int> parseStateCode(std::string_view text);

// The IB physical port state the code means (IBTA PortPhysicalState, as
// the kernel's phys_state file spells it): 5 -> "LinkUp"; "" when unknown.
std::string_view physStateNameOfCode(int code);

// "CapEff:\t00000000a80425fb" line of /proc/<pid>/status.
std::optional<uint64_t> parseStatusCapEff(std::string_view status);

// Size of the tmpfs mounted at /dev/shm from /proc/<pid>/mountinfo, from
// its "size=" super option ("65536k", "1g", bytes). nullopt when /dev/shm is
// not in the table or has no size option (then statvfs is the only source).
std::optional<uint64_t> parseMountinfoShmBytes(std::string_view mountinfo);
// True when mountinfo lists a mount at /dev/shm.
bool mountinfoHasShm(std::string_view mountinfo);

// "32.0 GT/s PCIe", "8 GT/s", "Unknown" -> GT/s.
std::optional<double> parseLinkSpeedGts(std::string_view text);

// The interface of the IPv4 default route in /proc/net/route: the up route
// (flag RTF_UP) with destination and mask 00000000, the lowest metric winning
// (the first on a tie, as the kernel lists them). nullopt when there is none.
std::optional<std::string> parseDefaultRouteInterface(std::string_view route_table);

}  // namespace railkit::sys
