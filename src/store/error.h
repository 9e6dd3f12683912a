#pragma once

// Typed errors for every layer of moraine. Callers catch by type (or switch on
// code()) so that, e.g., a conflict can be retried while corruption is fatal.
//
// Thread-safety: an error is immutable after construction: any thread may read
// one.

#include <stdexcept>
#include <string>

namespace moraine::store {

enum class ErrorCode {
  kCorruption,
  kNotFound,
  kConflict,
  kInvalidArgument,
  kStoreLocked,
  kIo,
  kConstraint,
  kUnsupportedVersion,
  kReadOnly,
  // The store refused who we are or what we asked: credentials it does not
  // accept, a certificate that is not trusted, a permission the user lacks.
  kAccessDenied,
};

// A stable, human-readable name for an error code ("corruption", ...).
const char* ErrorCodeName(ErrorCode code);

// what() is the message alone, one sentence saying what happened and what to
// do; the code is the type. Layers above pass the message on unchanged rather
// than prefixing their own words to it.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// One thin subclass per code, so `catch (const ConflictError&)` reads well.
#define MORAINE_STORE_DEFINE_ERROR(Name, Code)                                     \
  class Name : public Error {                                                      \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(ErrorCode::Code, message) {} \
  };

MORAINE_STORE_DEFINE_ERROR(CorruptionError, kCorruption)
MORAINE_STORE_DEFINE_ERROR(NotFoundError, kNotFound)
MORAINE_STORE_DEFINE_ERROR(ConflictError, kConflict)
MORAINE_STORE_DEFINE_ERROR(InvalidArgumentError, kInvalidArgument)
MORAINE_STORE_DEFINE_ERROR(StoreLockedError, kStoreLocked)
MORAINE_STORE_DEFINE_ERROR(IoError, kIo)
MORAINE_STORE_DEFINE_ERROR(ConstraintError, kConstraint)
MORAINE_STORE_DEFINE_ERROR(UnsupportedVersionError, kUnsupportedVersion)
MORAINE_STORE_DEFINE_ERROR(ReadOnlyError, kReadOnly)
MORAINE_STORE_DEFINE_ERROR(AccessDeniedError, kAccessDenied)

#undef MORAINE_STORE_DEFINE_ERROR

}  // namespace moraine::store
