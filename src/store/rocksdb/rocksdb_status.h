#pragma once

// Translates RocksDB statuses into moraine's typed errors, so nothing above
// the backend ever sees a rocksdb::Status.

#include <string_view>

namespace rocksdb {
class Status;
}

namespace moraine::store {

// True for RocksDB's refusal to open a database another handle has locked
// (it has no status code of its own, only its message).
bool IsLockError(const rocksdb::Status& status);

// Throws the typed Error matching `status` unless it is OK. `context` says
// what was being done ("get", "open /data/lake.moraine", ...).
void ThrowIfError(const rocksdb::Status& status, std::string_view context);

}  // namespace moraine::store
