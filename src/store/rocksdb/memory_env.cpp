#include "store/rocksdb/memory_env.h"

#include <rocksdb/env.h>

#include <map>
#include <mutex>
#include <string>

namespace moraine::store {

std::shared_ptr<rocksdb::Env> MemoryEnvFor(std::string_view name) {
  if (name.empty())
    return std::shared_ptr<rocksdb::Env>(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  static std::mutex mutex;
  // Leaked on purpose: no static-destruction-order hazard with RocksDB threads.
  static auto* named = new std::map<std::string, std::shared_ptr<rocksdb::Env>, std::less<>>();
  std::lock_guard lock(mutex);
  auto it = named->find(name);
  if (it == named->end()) {
    it = named->emplace(std::string(name), rocksdb::NewMemEnv(rocksdb::Env::Default())).first;
  }
  return it->second;
}

}  // namespace moraine::store
