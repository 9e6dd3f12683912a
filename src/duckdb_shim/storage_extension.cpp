#include "duckdb_shim/storage_extension.h"

#include <memory>
#include <string>

#include "commit/catalog_version_raise.h"
#include "commit/store_format.h"
#include "commit/store_registry.h"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/parsed_data/attach_info.hpp"
#include "duckdb/planner/extension_callback.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "duckdb_shim/moraine_transaction_manager.h"
#include "duckdb_shim/native_metadata_manager.h"
#include "store/error.h"

namespace moraine::duckdb_shim {
namespace {

constexpr std::string_view kPathPrefix = "moraine:";

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
  if (path.empty()) throw duckdb::InvalidInputException("ATTACH of a moraine store needs a path");
  std::shared_ptr<store::KvStore> store;
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
  try {
    // Which store the location opens, and its sharing, are the store's policy.
    store = commit::StoreRegistry::Instance().Open(std::string(path), read_only);
    commit::RequireCurrentStoreFormat(*store);
    shape = commit::ServedCatalogVersion(store);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  // A further metadata schema's catalog is a store nested in this one's
  // location, opened (and shared) the same way.
  auto open_nested = [read_only](const std::string& location, bool create) {
    try {
      return commit::StoreRegistry::Instance().Open(location, read_only, create && !read_only);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  };
  auto catalog = duckdb::make_uniq<MoraineCatalog>(db, CatalogStore::Of(std::move(store), shape),
                                                   std::move(open_nested));
  catalog->set_native_manager(native_manager);
  // DuckLake attaches its metadata catalog after it is loaded and before the
  // transactions that read it: the last moment moraine can register, for a
  // DuckLake whose load no extension callback saw.
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

namespace {

// Registers moraine's DuckLake metadata manager once DuckLake is loaded.
class RegisterWhenDuckLakeLoads final : public duckdb::ExtensionCallback {
 public:
  void OnExtensionLoaded(duckdb::DatabaseInstance&, const duckdb::string& name) override {
    if (name == "ducklake") NativeMetadataManager::EnsureRegistered();
  }
};

}  // namespace

void RegisterStorageExtension(duckdb::DBConfig& config) {
  auto extension = duckdb::make_shared_ptr<duckdb::StorageExtension>();
  extension->attach = AttachMoraine;
  // DuckDB only routes an ATTACH to an extension that provides both hooks.
  extension->create_transaction_manager = CreateTransactionManager;
  duckdb::StorageExtension::Register(config, "moraine", std::move(extension));
  // The native manager registers as soon as DuckLake is loaded, before or
  // after moraine, so that the first ATTACH's manager is moraine's too (its
  // attach reads among them). Registering at the first ATTACH still covers
  // a DuckLake loaded any other way.
  NativeMetadataManager::EnsureRegistered();
  duckdb::ExtensionCallback::Register(config, duckdb::make_shared_ptr<RegisterWhenDuckLakeLoads>());
}

}  // namespace moraine::duckdb_shim
