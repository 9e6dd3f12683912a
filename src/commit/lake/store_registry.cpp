#include "commit/lake/store_registry.h"

#include <filesystem>
#include <string_view>

#include "commit/lake/catalog_caching_store.h"
#include "commit/rows/commit_intent.h"
#include "store/error.h"
#include "store/etcd/etcd_location.h"
#include "store/rocksdb/memory_env.h"

namespace moraine::commit {
namespace {

// One entry per store: the store layer decides whether the location may be
// created (only when absent or empty); here the path only names the entry.
std::string Canonical(const std::string& location) {
  // Memory and etcd locations name no file: they pass unchanged.
  if (location.starts_with(store::kMemoryScheme) || store::EtcdLocation::Matches(location)) {
    return location;
  }
  if (location.empty()) {
    throw store::InvalidArgumentError("a moraine store location must not be empty");
  }
  return std::filesystem::weakly_canonical(std::filesystem::absolute(location)).string();
}

std::shared_ptr<CatalogCachingStore> Opened(const std::string& location, bool read_only,
                                            bool create,
                                            const std::optional<store::EtcdSecurity>& security) {
  try {
    auto opened =
        std::make_shared<CatalogCachingStore>(store::OpenKvStore({.location = location,
                                                                  .read_only = read_only,
                                                                  .create_if_missing = create,
                                                                  .etcd_security = security}));
    // Its commits may land other writers' commits with their own.
    opened->SetIntentReplayer(CommitIntentReplayer());
    return opened;
  } catch (const store::NotFoundError&) {
    if (create) throw;
    return nullptr;
  }
}

}  // namespace

StoreRegistry& StoreRegistry::Instance() {
  static auto* registry = new StoreRegistry();  // never destroyed: outlives every user
  return *registry;
}

std::shared_ptr<CatalogCachingStore> StoreRegistry::Open(
    const std::string& path, bool read_only, bool create,
    const std::optional<store::EtcdSecurity>& etcd_security) {
  const auto location = Canonical(path);
  // A private in-memory store is, by definition, never shared.
  if (location == store::kMemoryScheme) return Opened(location, read_only, create, etcd_security);
  // An etcd location's credentials are settled here, once: the handle is
  // keyed by them and opened with them.
  std::string key = location;
  std::optional<store::EtcdSecurity> security = etcd_security;
  if (store::EtcdLocation::Matches(location)) {
    if (!security) security = store::EtcdSecurity::FromEnvironment();
    key += '\n' + security->Identity();
  }
  Handles* found = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    found = &handles_[key];
  }
  auto& handles = *found;
  std::lock_guard<std::mutex> opening(handles.opening);
  if (auto writer = handles.read_write.lock()) return writer;
  if (read_only) {
    if (auto reader = handles.read_only.lock()) return reader;
    auto reader = Opened(location, true, create, security);
    if (reader) handles.read_only = reader;
    return reader;
  }
  auto writer = Opened(location, false, create, security);
  if (writer) handles.read_write = writer;
  return writer;
}

}  // namespace moraine::commit
