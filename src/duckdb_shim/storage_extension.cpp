#include "duckdb_shim/storage_extension.h"

#include <memory>
#include <string>

#include "commit/lake/store_registry.h"
#include "commit/migrations/catalog_version_raise.h"
#include "commit/migrations/store_format.h"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/parsed_data/attach_info.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "duckdb_shim/etcd_secret.h"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_transaction.h"
#include "duckdb_shim/moraine_transaction_manager.h"
#include "duckdb_shim/raw_cell_order.h"
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

// What RegisterStorageExtension was given, kept with the storage extension.
struct MoraineStorageInfo final : public duckdb::StorageExtensionInfo {
  explicit MoraineStorageInfo(AttachHook hook) : on_attach(hook) {}
  AttachHook on_attach;
};

duckdb::unique_ptr<duckdb::Catalog> AttachMoraine(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo> storage_info, duckdb::ClientContext& context,
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
  // An etcd lake's credentials, from the session's moraine_etcd secret; its
  // nested catalogs are under its prefix and are opened with the same ones.
  const auto security = LookupEtcdSecurity(context, std::string(path));
  std::shared_ptr<commit::CatalogCachingStore> store;
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
  try {
    // Which store the location opens, and its sharing, are the store's policy.
    store = commit::StoreRegistry::Instance().Open(std::string(path), read_only, true, security);
    commit::RequireCurrentStoreFormat(*store);
    shape = commit::ServedCatalogVersion(store);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  // A further metadata schema's catalog is a store nested in this one's
  // location, opened (and shared) the same way.
  auto open_nested = [read_only, security](const std::string& location, bool create) {
    try {
      return commit::StoreRegistry::Instance().Open(location, read_only, create && !read_only,
                                                    security);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  };
  auto catalog = duckdb::make_uniq<MoraineCatalog>(db, CatalogStore{std::move(store), shape},
                                                   std::move(open_nested));
  catalog->set_native_manager(native_manager);
  if (storage_info) {
    if (auto hook = static_cast<MoraineStorageInfo&>(*storage_info).on_attach) hook();
  }
  return catalog;
}

duckdb::unique_ptr<duckdb::TransactionManager> CreateTransactionManager(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo>, duckdb::AttachedDatabase& db,
    duckdb::Catalog& catalog) {
  auto& moraine = catalog.Cast<MoraineCatalog>();
  return duckdb::make_uniq<MoraineTransactionManager>(db, moraine.catalog_store());
}

}  // namespace

void RegisterStorageExtension(duckdb::DBConfig& config, AttachHook on_attach) {
  auto extension = duckdb::make_shared_ptr<duckdb::StorageExtension>();
  extension->attach = AttachMoraine;
  // DuckDB only routes an ATTACH to an extension that provides both hooks.
  extension->create_transaction_manager = CreateTransactionManager;
  extension->storage_info = duckdb::make_shared_ptr<MoraineStorageInfo>(on_attach);
  duckdb::StorageExtension::Register(config, "moraine", std::move(extension));
  RegisterEtcdSecretType(config);
  // Inlined batches' summaries bound the columns whose cells this shim orders.
  RawCellOrder::Install();
}

}  // namespace moraine::duckdb_shim
