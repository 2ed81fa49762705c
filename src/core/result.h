#pragma once
// Errors are values. Every library function that can fail returns Result<T>
// (tl::expected, the shape of C++23 std::expected). The code says what the
// caller does next; the message says what was expected, what was found and
// where. Context is prepended on the way up ("reading /sys/...: ...").
// The CLI turns an Error into one line on stderr and an exit status, in one
// place (cli/common.cc).

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace railkit {

enum class ErrorCode {
  kNotFound,      // a file, device or name that is absent
  kInvalidInput,  // input that cannot be read as what it should be
  kIo,            // the OS refused (permission, read error)
  kUsage,         // bad flags or arguments
  kUnavailable,   // an optional library or capability is missing
  kTimeout,       // a deadline passed (bootstrap, stall)
  kPeerLost,      // a remote rank vanished or broke protocol
  kInternal,      // our own bug
};

struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;

  // Returns a copy whose message reads "context: message".
  Error withContext(std::string_view context) const {
    return Error{code, std::string(context) + ": " + message};
  }
};

// tl::expected with [[nodiscard]]: the compiler flags a Result or Status
// whose error nobody looked at (an ignored failure would pass silently).
template <class T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using tl::expected<T, Error>::expected;
  Result(tl::expected<T, Error> other) : tl::expected<T, Error>(std::move(other)) {}
};
using Status = Result<void>;

inline tl::unexpected<Error> makeError(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

inline Status okStatus() {
  return {};
}

// Adds context to the error of a Result, passing values through unchanged.
template <class T>
Result<T> withContext(Result<T> result, std::string_view context) {
  if (result) return result;
  return tl::unexpected<Error>(result.error().withContext(context));
}

}  // namespace railkit
