#include "store/error.h"

namespace moraine::store {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCorruption:
      return "corruption";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kStoreLocked:
      return "store locked";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kConstraint:
      return "constraint violation";
    case ErrorCode::kUnsupportedVersion:
      return "unsupported version";
    case ErrorCode::kReadOnly:
      return "read-only";
    case ErrorCode::kAccessDenied:
      return "access denied";
  }
  return "unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

}  // namespace moraine::store
