#include "core/result.h"

namespace railkit {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotFound: return "not-found";
    case ErrorCode::kInvalidInput: return "invalid-input";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kUsage: return "usage";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kPeerLost: return "peer-lost";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

}  // namespace railkit
