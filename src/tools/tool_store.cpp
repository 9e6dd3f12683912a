#include "tools/tool_store.h"

#include <filesystem>

#include "commit/lake/store_records.h"
#include "store/error.h"
#include "store/etcd/etcd_location.h"
#include "store/rocksdb/memory_env.h"

namespace moraine::tools {

std::shared_ptr<store::KvStore> OpenStoreReadOnly(const std::string& path) {
  // A memory:// or etcd(s):// location is no directory; OpenKvStore judges it.
  if (!path.starts_with(store::kMemoryScheme) && !store::EtcdLocation::Matches(path) &&
      !std::filesystem::is_directory(path)) {
    throw store::NotFoundError("no moraine store at " + path + ": not a directory");
  }
  std::shared_ptr<store::KvStore> kv =
      store::OpenKvStore({.location = path, .read_only = true, .create_if_missing = false});
  if (!store::GetLatest(*kv, commit::HeadKey())) {
    throw store::InvalidArgumentError(path +
                                      " holds no moraine catalog (no head record): DuckLake has "
                                      "not initialized it, or it is not a moraine store");
  }
  return kv;
}

}  // namespace moraine::tools
