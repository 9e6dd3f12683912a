#include "duckdb_shim/storage_extension.h"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "commit/catalog_caching_store.h"
#include "commit/catalog_version_raise.h"
#include "commit/store_format.h"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/parsed_data/attach_info.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "duckdb_shim/native_metadata_manager.h"
#include "store/error.h"
#include "store/etcd_location.h"

namespace moraine::duckdb_shim {
namespace {

constexpr std::string_view kMemoryScheme = "memory://";
constexpr std::string_view kPathPrefix = "moraine:";

// One open store per location per process. The same store is routinely
// attached more than once (DuckLake's ATTACH OR REPLACE, two lakes on one
// path, DETACH followed by ATTACH while old plans still hold the catalog),
// and RocksDB allows a single read-write open. A read-only attach is served
// by the read-write handle when one is open: a separate read-only RocksDB
// handle would see a frozen view of a store this process keeps writing.
class StoreRegistry {
 public:
  static StoreRegistry& Instance() {
    static auto* registry = new StoreRegistry();  // never destroyed: outlives every Host
    return *registry;
  }

  // `create`: whether an absent store may be created; when not, an absent
  // one is nullptr.
  std::shared_ptr<store::KvStore> Open(const std::string& path, bool read_only,
                                       bool create = true) {
    const auto location = Canonical(path);
    // A private in-memory store is, by definition, never shared.
    if (location == kMemoryScheme) return Opened(location, read_only, create);
    std::lock_guard<std::mutex> lock(mutex_);
    auto& handles = handles_[location];
    if (auto writer = handles.read_write.lock()) return writer;
    if (read_only) {
      if (auto reader = handles.read_only.lock()) return reader;
      auto reader = Opened(location, true, create);
      handles.read_only = reader;
      return reader;
    }
    auto writer = Opened(location, false, create);
    handles.read_write = writer;
    return writer;
  }

 private:
  struct Handles {
    std::weak_ptr<store::KvStore> read_write;
    std::weak_ptr<store::KvStore> read_only;
  };

  // The store layer decides whether the location may be created (only when
  // absent or empty); here the path only names one entry per store.
  static std::string Canonical(const std::string& path) {
    // Memory and etcd locations name no file: they pass unchanged.
    if (path.starts_with(kMemoryScheme) || store::EtcdLocation::Matches(path)) return path;
    if (path.empty()) throw duckdb::InvalidInputException("ATTACH of a moraine store needs a path");
    return std::filesystem::weakly_canonical(std::filesystem::absolute(path)).string();
  }

  static std::shared_ptr<store::KvStore> Opened(const std::string& location, bool read_only,
                                                bool create) {
    try {
      // Every commit of this process to the store passes this one handle,
      // which keeps the catalog at the head in memory for DuckLake's reads.
      return std::make_shared<commit::CatalogCachingStore>(store::OpenKvStore(
          {.location = location, .read_only = read_only, .create_if_missing = create}));
    } catch (const store::NotFoundError& error) {
      if (!create) return nullptr;
      ThrowAsDuckDB(error);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  }

  std::mutex mutex_;
  std::map<std::string, Handles> handles_;
};

// ATTACH 'ducklake:moraine:...' (META_NATIVE_MANAGER false) reaches the
// metadata catalog's attach as `native_manager false`.
bool NativeManagerOption(duckdb::AttachOptions& options) {
  auto entry = options.options.find("native_manager");
  if (entry == options.options.end()) return true;
  const bool enabled = entry->second.DefaultCastAs(duckdb::LogicalType::BOOLEAN).GetValue<bool>();
  options.options.erase(entry);
  return enabled;
}

duckdb::unique_ptr<duckdb::Catalog> AttachMoraine(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo>, duckdb::ClientContext&,
    duckdb::AttachedDatabase& db, const duckdb::string&, duckdb::AttachInfo& info,
    duckdb::AttachOptions& options) {
  const bool read_only = options.access_mode == duckdb::AccessMode::READ_ONLY;
  // Options first: a bad one must be refused before the store is opened (an
  // open may create it).
  const bool native_manager = NativeManagerOption(options);
  // DuckDB strips the "moraine:" of 'moraine:<path>' only when it picks the
  // storage extension from that prefix, not when TYPE moraine names it too.
  std::string_view path = info.path;
  if (path.starts_with(kPathPrefix)) path.remove_prefix(kPathPrefix.size());
  auto store = StoreRegistry::Instance().Open(std::string(path), read_only);
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
  try {
    commit::RequireCurrentStoreFormat(*store);
    shape = commit::ServedCatalogVersion(store);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  auto open_nested = [read_only](const std::string& location, bool create) {
    return StoreRegistry::Instance().Open(location, read_only, create && !read_only);
  };
  auto catalog = duckdb::make_uniq<MoraineCatalog>(db, CatalogStore::Of(std::move(store), shape),
                                                   std::move(open_nested));
  catalog->set_native_manager(native_manager);
  // DuckLake attaches its metadata catalog after it is loaded and before the
  // transactions that read it: the first moment moraine can register.
  NativeMetadataManager::EnsureRegistered();
  return catalog;
}

duckdb::unique_ptr<duckdb::TransactionManager> CreateTransactionManager(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo>, duckdb::AttachedDatabase& db,
    duckdb::Catalog& catalog) {
  auto& moraine = catalog.Cast<MoraineCatalog>();
  return duckdb::make_uniq<MoraineTransactionManager>(db, moraine.catalog_store());
}

}  // namespace

void RegisterStorageExtension(duckdb::DBConfig& config) {
  auto extension = duckdb::make_shared_ptr<duckdb::StorageExtension>();
  extension->attach = AttachMoraine;
  // DuckDB only routes an ATTACH to an extension that provides both hooks.
  extension->create_transaction_manager = CreateTransactionManager;
  duckdb::StorageExtension::Register(config, "moraine", std::move(extension));
}

}  // namespace moraine::duckdb_shim
