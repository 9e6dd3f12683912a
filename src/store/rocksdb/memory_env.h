#pragma once

// In-memory RocksDB environments for "memory://" locations. A named store must
// outlive a close so that reopening "memory://<name>" in the same process sees
// its data (as reopening a directory would); an unnamed one is private.
//
// Thread-safety: MemoryEnvFor may be called from any thread: a static mutex
// guards the process's named environments, and a RocksDB Env is itself
// thread-safe.

#include <memory>
#include <string_view>

namespace rocksdb {
class Env;
}

namespace moraine::store {

inline constexpr std::string_view kMemoryScheme = "memory://";

// The process-wide environment for `name`, created on first use and kept for
// the life of the process; a fresh private environment when `name` is empty.
std::shared_ptr<rocksdb::Env> MemoryEnvFor(std::string_view name);

}  // namespace moraine::store
