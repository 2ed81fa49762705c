#pragma once
// railkit's version, from CMake's project(VERSION) (src/core/CMakeLists.txt
// passes it in), for --version and the JSON documents' railkit_version.

namespace railkit {

inline constexpr const char* kRailkitVersion = RAILKIT_VERSION;

}  // namespace railkit
