// A schema of a moraine catalog, served by one store (catalog_store.h): its
// tables are whatever that store's RowTransaction says exists (DuckLake's
// fixed tables and the inlined data/delete families). Table entries are cached per shape and never
// freed before the catalog.
//
// Thread-safety: thread-safe, since DuckDB looks entries up from any thread:
// mutex_ guards entries_, and rows are read under the transaction's lock.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/catalog/catalog_entry/schema_catalog_entry.hpp"
#include "duckdb_shim/catalog_store.h"
#include "duckdb_shim/moraine_table_entry.h"

namespace moraine::duckdb_shim {

class MoraineTransaction;

class MoraineSchemaEntry : public duckdb::SchemaCatalogEntry {
 public:
  // `where`: the store that serves this schema's catalog.
  MoraineSchemaEntry(duckdb::Catalog& owning_catalog, duckdb::CreateSchemaInfo& info,
                     CatalogStore where);

  const CatalogStore& catalog_store() const { return where_; }
  // How many table entries this schema has built so far (every shape of
  // every table it served); for tests of what a lookup costs.
  size_t BuiltEntryCount();

  duckdb::optional_ptr<duckdb::CatalogEntry> LookupEntry(
      duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateTable(
      duckdb::CatalogTransaction transaction, duckdb::BoundCreateTableInfo& info) override;
  // Creates the table `spec` describes in the transaction's store, as
  // CreateTable does for a bound CREATE TABLE, without building its entry
  // (the commit batch stager's path: DuckLake never reads the entry of the
  // inlined data table it creates). False when the table exists and
  // `on_conflict` ignores it; throws DuckDB's CatalogException when it exists
  // and `on_conflict` is an error.
  bool CreateTableOfSpec(duckdb::CatalogTransaction transaction, const commit::TableSpec& spec,
                         duckdb::OnCreateConflict on_conflict);
  void DropEntry(duckdb::ClientContext& context, duckdb::DropInfo& info) override;
  void Scan(duckdb::ClientContext& context, duckdb::CatalogType entry_type,
            const std::function<void(duckdb::CatalogEntry&)>& callback) override;
  void Scan(duckdb::CatalogType entry_type,
            const std::function<void(duckdb::CatalogEntry&)>& callback) override;
  void Alter(duckdb::CatalogTransaction transaction, duckdb::AlterInfo& info) override;
  // The "did you mean" of a failed lookup, from table names alone. DuckLake
  // probes for inlined tables by querying them and taking the error as
  // "absent"; DuckDB's default builds every table entry to rank their names,
  // which on a lake of hundreds of inlined tables cost a session's first
  // query 200 ms.
  duckdb::SimilarCatalogEntry GetSimilarEntry(duckdb::CatalogTransaction transaction,
                                              const duckdb::EntryLookupInfo& lookup) override;

  duckdb::optional_ptr<duckdb::CatalogEntry> CreateIndex(duckdb::CatalogTransaction,
                                                         duckdb::CreateIndexInfo&,
                                                         duckdb::TableCatalogEntry&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateFunction(duckdb::CatalogTransaction,
                                                            duckdb::CreateFunctionInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateView(duckdb::CatalogTransaction,
                                                        duckdb::CreateViewInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateSequence(duckdb::CatalogTransaction,
                                                            duckdb::CreateSequenceInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateTableFunction(
      duckdb::CatalogTransaction, duckdb::CreateTableFunctionInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateCopyFunction(
      duckdb::CatalogTransaction, duckdb::CreateCopyFunctionInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreatePragmaFunction(
      duckdb::CatalogTransaction, duckdb::CreatePragmaFunctionInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateCollation(duckdb::CatalogTransaction,
                                                             duckdb::CreateCollationInfo&) override;
  duckdb::optional_ptr<duckdb::CatalogEntry> CreateType(duckdb::CatalogTransaction,
                                                        duckdb::CreateTypeInfo&) override;

 private:
  // The entry for `spec`, reusing the cached one while the shape is
  // unchanged. Entries are never freed before the catalog: plans bound in
  // one transaction may outlive a DROP or a re-create in another.
  MoraineTableEntry& EntryFor(const commit::TableSpec& spec,
                              duckdb::optional_ptr<duckdb::ClientContext> context);

  const CatalogStore where_;
  std::mutex mutex_;
  duckdb::case_insensitive_map_t<std::vector<std::unique_ptr<MoraineTableEntry>>> entries_;
};

}  // namespace moraine::duckdb_shim
