// The DuckDB catalog a moraine store presents: one schema per DuckLake
// catalog it holds (`main`, or the name the store's catalog was created
// under, which the RowTransaction reports; and the schema of each further
// catalog nested in the store, store/nested_catalog_location.h), whose
// tables are whatever that schema's RowTransaction says exists (DuckLake's
// 28 fixed tables and the inlined data/delete families). Table entries are
// thin views of a commit::TableSpec; rows are never held here.
//
// Thread-safety: thread-safe; DuckDB calls a catalog from any client thread.
// schemas_mutex_ guards schemas_, retired_schemas_ and nested_ (it is not held
// while a nested store opens); native_manager_ is set once, at attach, before
// the catalog is shared.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "duckdb/catalog/catalog.hpp"
#include "duckdb_shim/catalog_store.h"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/moraine_schema_entry.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

class MoraineTransaction;

class MoraineCatalog : public duckdb::Catalog {
 public:
  // Opens the store of a nested catalog at a location (read-only when the
  // catalog is), creating it only when `create`; nullptr when it is absent
  // and not created. Throws what opening a store throws.
  using StoreOpener = std::function<std::shared_ptr<commit::CatalogCachingStore>(
      const std::string& location, bool create)>;

  // `catalog`: the store and the catalog version this attach serves, for its
  // whole life: a raise shows up in later attaches, never in this one
  // (RFC 0012). Nested catalogs are opened with `open_nested`.
  MoraineCatalog(duckdb::AttachedDatabase& attached, CatalogStore catalog, StoreOpener open_nested);
  ~MoraineCatalog() override;

  const std::shared_ptr<commit::CatalogCachingStore>& store() const { return catalog_.store; }
  const CatalogStore& catalog_store() const { return catalog_; }
  catalog::CatalogVersion shape() const { return catalog_.shape; }
  // The store serving the DuckLake catalog whose metadata schema is
  // `schema`, as `transaction` sees it: this store's own catalog, or a nested
  // one that exists. nullopt when neither holds it.
  std::optional<CatalogStore> StoreOfSchema(MoraineTransaction& transaction,
                                            const std::string& schema);
  // Whether DuckLake's reads of this catalog may be answered by moraine's
  // native metadata manager (the default) or only by DuckLake's SQL
  // (ATTACH ... (META_NATIVE_MANAGER false)). Fixed at attach.
  bool native_manager() const { return native_manager_; }
  void set_native_manager(bool enabled) { native_manager_ = enabled; }

  void Initialize(bool load_builtin) override;
  duckdb::string GetCatalogType() override { return "moraine"; }
  // The schema the store's catalog is served under, as committed.
  DefaultSchema GetDefaultSchema() const override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateSchema(duckdb::CatalogTransaction transaction,
                                                          duckdb::CreateSchemaInfo& info) override;
  duckdb::optional_ptr<duckdb::SchemaCatalogEntry> LookupSchema(
      duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
      duckdb::OnEntryNotFound if_not_found) override;
  void ScanSchemas(duckdb::ClientContext& context,
                   std::function<void(duckdb::SchemaCatalogEntry&)> callback) override;

  duckdb::PhysicalOperator& PlanCreateTableAs(duckdb::ClientContext& context,
                                              duckdb::PhysicalPlanGenerator& planner,
                                              duckdb::LogicalCreateTable& op,
                                              duckdb::PhysicalOperator& plan) override;
  duckdb::PhysicalOperator& PlanInsert(
      duckdb::ClientContext& context, duckdb::PhysicalPlanGenerator& planner,
      duckdb::LogicalInsert& op, duckdb::optional_ptr<duckdb::PhysicalOperator> plan) override;
  duckdb::PhysicalOperator& PlanDelete(duckdb::ClientContext& context,
                                       duckdb::PhysicalPlanGenerator& planner,
                                       duckdb::LogicalDelete& op,
                                       duckdb::PhysicalOperator& plan) override;
  duckdb::PhysicalOperator& PlanUpdate(duckdb::ClientContext& context,
                                       duckdb::PhysicalPlanGenerator& planner,
                                       duckdb::LogicalUpdate& op,
                                       duckdb::PhysicalOperator& plan) override;

  duckdb::DatabaseSize GetDatabaseSize(duckdb::ClientContext& context) override;
  bool InMemory() override;
  duckdb::string GetDBPath() override;

 private:
  void DropSchema(duckdb::ClientContext& context, duckdb::DropInfo& info) override;

  // The name the store serves its own catalog under, as `transaction` sees it.
  std::string SchemaName(MoraineTransaction& transaction);
  // The nested catalog store at `location`, opened once for the catalog's
  // life (its catalog version chosen then); nullopt when absent and not
  // `create`d. Throws store errors.
  std::optional<CatalogStore> OpenNested(const std::string& location, bool create);
  // The nested catalog of `schema` if its store exists and holds a catalog
  // (or one this transaction is creating); `create`: create it if not.
  std::optional<CatalogStore> NestedCatalog(MoraineTransaction& transaction,
                                            const std::string& schema, bool create);
  // The entry of the schema called `name`; entries live as long as the
  // catalog, since bound plans may hold them.
  MoraineSchemaEntry& SchemaEntryNamed(const std::string& name, const CatalogStore& where);

  CatalogStore catalog_;
  StoreOpener open_nested_;
  bool native_manager_ = true;
  std::mutex schemas_mutex_;
  duckdb::case_insensitive_map_t<std::unique_ptr<MoraineSchemaEntry>> schemas_;
  std::vector<std::unique_ptr<MoraineSchemaEntry>> retired_schemas_;
  // Nested catalog stores opened so far, by location (names are encoded
  // case-insensitively into it).
  std::map<std::string, CatalogStore> nested_;
};

}  // namespace moraine::duckdb_shim
