#pragma once
// Facts only the running machine can give, not files: interface addresses
// (getifaddrs) and the size of a mounted file system (statvfs). With --root
// they come from the snapshot's railkit/live.json instead.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace railkit::sys {

// Interface name -> ["10.0.0.1/24", "fe80::1/64"], sorted. Empty on failure.
std::map<std::string, std::vector<std::string>> liveInterfaceAddresses();

// Total bytes of the file system mounted at `path` on the live machine.
std::optional<uint64_t> liveFsBytes(const std::string& path);

}  // namespace railkit::sys
