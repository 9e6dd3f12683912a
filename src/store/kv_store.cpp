#include "store/kv_store.h"

#include "store/etcd/etcd_location.h"
#include "store/etcd/etcd_store.h"
#include "store/rocksdb/rocksdb_store.h"

namespace moraine::store {

std::unique_ptr<KvStore> OpenKvStore(const KvOptions& options) {
  // The location's scheme picks the backend: etcd://... is a lake in an etcd
  // cluster; anything else (a path, memory://) is RocksDB.
  if (EtcdLocation::Matches(options.location)) return EtcdStore::Open(options);
  return RocksDbStore::Open(options);
}

std::optional<std::string> GetLatest(KvStore& store, std::string_view key) {
  return store.GetSnapshot()->Get(key);
}

}  // namespace moraine::store
