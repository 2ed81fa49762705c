#pragma once
// Small helpers every JSON writer uses.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace railkit {

// The one way a writer says "not known": a value the input did not show is
// null, never a guess (nor 0, nor "").
template <class T>
nlohmann::json jsonOpt(const std::optional<T>& v) {
  if (v) return *v;
  return nullptr;
}

// Text the input did not show (empty) is null.
inline nlohmann::json jsonOpt(const std::string& text) {
  if (text.empty()) return nullptr;
  return text;
}

// The value that is there, written as `write` says (a hex string, a nested
// object); null when there is none.
template <class T, class F>
nlohmann::json jsonOpt(const std::optional<T>& v, F&& write) {
  if (v) return std::forward<F>(write)(*v);
  return nullptr;
}

// `value` where `known` says the input showed it (a flag kept beside the
// field), null where it did not.
template <class T>
nlohmann::json jsonOpt(bool known, const T& value) {
  if (known) return value;
  return nullptr;
}

// `into.update(part)` without the copy: update() copies every value, and
// the documents of a big log hold tens of thousands of rows and ranks
// (copying them was most of the time after the log was read).
inline void mergeMoved(nlohmann::json& into, nlohmann::json&& part) {
  for (auto it = part.begin(); it != part.end(); ++it) into[it.key()] = std::move(it.value());
}

}  // namespace railkit
