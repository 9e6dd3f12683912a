#include "store/kv_store.h"

#include <cstdlib>
#include <string_view>

#include "store/etcd/etcd_location.h"
#include "store/etcd/etcd_store.h"
#include "store/rocksdb/rocksdb_store.h"

namespace moraine::store {

std::unique_ptr<KvStore> OpenKvStore(const KvOptions& options) {
  // The location's scheme picks the backend: etcd://... is a lake in an etcd
  // cluster; anything else (a path, memory://) is RocksDB.
  if (EtcdLocation::Matches(options.location)) {
    EtcdStoreOptions etcd_options;
    // Group commit is on unless switched off (to measure it against its absence).
    if (const char* group = std::getenv("MORAINE_ETCD_GROUP_COMMIT");
        group && std::string_view(group) == "off") {
      etcd_options.group_commit = false;
    }
    return EtcdStore::Open(options, etcd_options);
  }
  return RocksDbStore::Open(options);
}

std::optional<std::string> GetLatest(KvStore& store, std::string_view key) {
  return store.GetSnapshot()->Get(key);
}

}  // namespace moraine::store
