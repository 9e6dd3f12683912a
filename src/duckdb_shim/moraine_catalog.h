// The DuckDB catalog a moraine store presents: one schema (`main`, or the name
// the catalog was created under, which the RowTransaction reports), served by
// a MoraineSchemaEntry. It holds the store and the catalog shape chosen at
// attach; rows are never held here. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "catalog/catalog_version.h"
#include "duckdb/catalog/catalog.hpp"
#include "duckdb_shim/moraine_schema_entry.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

class MoraineCatalog : public duckdb::Catalog {
 public:
  // `shape` is the catalog version this attach serves, for its whole life:
  // a raise shows up in later attaches, never in this one (RFC 0012).
  MoraineCatalog(duckdb::AttachedDatabase& attached, std::shared_ptr<store::KvStore> store,
                 catalog::CatalogVersion shape);
  ~MoraineCatalog() override;

  const std::shared_ptr<store::KvStore>& store() const { return store_; }
  catalog::CatalogVersion shape() const { return shape_; }
  // Whether DuckLake's reads of this catalog may be answered by moraine's
  // native metadata manager (the default) or only by DuckLake's SQL
  // (ATTACH ... (META_NATIVE_MANAGER false)). Fixed at attach.
  bool native_manager() const { return native_manager_; }
  void set_native_manager(bool enabled) { native_manager_ = enabled; }

  void Initialize(bool load_builtin) override;
  duckdb::string GetCatalogType() override { return "moraine"; }
  // The schema the store's catalog is served under, as committed.
  duckdb::string GetDefaultSchema() const override;
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

  // The name the store serves its schema under, as `transaction` sees it.
  std::string SchemaName(duckdb::CatalogTransaction transaction);
  // The entry of the schema called `name`; entries live as long as the
  // catalog, since bound plans may hold them.
  MoraineSchemaEntry& SchemaEntryNamed(const std::string& name);

  std::shared_ptr<store::KvStore> store_;
  catalog::CatalogVersion shape_;
  bool native_manager_ = true;
  std::mutex schemas_mutex_;
  duckdb::case_insensitive_map_t<std::unique_ptr<MoraineSchemaEntry>> schemas_;
};

}  // namespace moraine::duckdb_shim
