#pragma once

// Translates RocksDB statuses into moraine's typed errors, so nothing above
// the backend ever sees a rocksdb::Status.

#include <string_view>

namespace rocksdb {
class Status;
}

namespace moraine::store {

// Throws the typed Error matching `status` unless it is OK. `context` says
// what was being done ("get", "open /data/lake.moraine", ...).
void ThrowIfError(const rocksdb::Status& status, std::string_view context);

}  // namespace moraine::store
