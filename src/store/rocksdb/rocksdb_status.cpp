#include "store/rocksdb/rocksdb_status.h"

#include <rocksdb/status.h>

#include <string>

#include "store/error.h"

namespace moraine::store {

bool IsLockError(const rocksdb::Status& status) {
  return status.IsIOError() && status.ToString().find("lock") != std::string::npos;
}

void ThrowIfError(const rocksdb::Status& status, std::string_view context) {
  if (status.ok()) return;
  const std::string message = std::string(context) + ": " + status.ToString();
  if (status.IsCorruption()) throw CorruptionError(message);
  if (status.IsNotFound() || status.IsPathNotFound()) throw NotFoundError(message);
  if (status.IsInvalidArgument()) throw InvalidArgumentError(message);
  if (status.IsBusy() || status.IsTryAgain()) throw ConflictError(message);
  if (IsLockError(status)) {
    throw StoreLockedError(message);
  }
  throw IoError(message);
}

}  // namespace moraine::store
