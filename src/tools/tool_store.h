// Opening a store for the tools: read-only (a RocksDB secondary instance, or a
// read-only etcd handle; safe beside a live writer), never created, and refused with a clear error
// when the path holds no moraine catalog.
#pragma once

#include <memory>
#include <string>

#include "store/kv_store.h"

namespace moraine::tools {

// Opens the store at `path` read-only. Throws store::NotFoundError when no
// store is there, and store::InvalidArgumentError when the path holds a
// key-value store that is not a moraine catalog (no head record).
std::shared_ptr<store::KvStore> OpenStoreReadOnly(const std::string& path);

}  // namespace moraine::tools
