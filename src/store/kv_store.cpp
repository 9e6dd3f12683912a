#include "store/kv_store.h"

#include "store/rocksdb_store.h"

namespace moraine::store {

std::unique_ptr<KvStore> OpenKvStore(const KvOptions& options) {
  // RocksDB is the only backend today; a distributed one would be chosen
  // here by the location's scheme.
  return RocksDbStore::Open(options);
}

std::optional<std::string> GetLatest(KvStore& store, std::string_view key) {
  return store.GetSnapshot()->Get(key);
}

}  // namespace moraine::store
