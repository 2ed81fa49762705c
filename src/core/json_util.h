#pragma once
// Small helpers every JSON writer uses.

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace railkit {

// A value the input did not show is null, never a guess.
template <class T>
nlohmann::json jsonOpt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

// `into.update(part)` without the copy: update() copies every value, and
// the documents of a big log hold tens of thousands of rows and ranks
// (copying them was most of the time after the log was read).
inline void mergeMoved(nlohmann::json& into, nlohmann::json&& part) {
  for (auto it = part.begin(); it != part.end(); ++it) into[it.key()] = std::move(it.value());
}

}  // namespace railkit
