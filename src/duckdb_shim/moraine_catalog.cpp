#include "duckdb_shim/moraine_catalog.h"

#include "duckdb/catalog/entry_lookup_info.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/parsed_data/create_schema_info.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/parser/parsed_data/drop_info.hpp"
#include "duckdb/storage/database_size.hpp"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {

MoraineCatalog::MoraineCatalog(duckdb::AttachedDatabase& attached,
                               std::shared_ptr<store::KvStore> store, catalog::CatalogVersion shape)
    : duckdb::Catalog(attached), store_(std::move(store)), shape_(shape) {}

MoraineCatalog::~MoraineCatalog() = default;

void MoraineCatalog::Initialize(bool) {}

std::string MoraineCatalog::SchemaName(duckdb::CatalogTransaction transaction) {
  if (transaction.transaction || transaction.context) {
    auto& moraine = transaction.transaction ? transaction.transaction->Cast<MoraineTransaction>()
                                            : MoraineTransaction::Get(*transaction.context, *this);
    return moraine.WithRows(false, [](commit::RowTransaction& rows) { return rows.SchemaName(); });
  }
  return GetDefaultSchema();  // no DuckDB transaction: the committed name
}

duckdb::string MoraineCatalog::GetDefaultSchema() const {
  try {
    auto rows = commit::BeginRowTransaction(store_, shape_);
    auto name = rows->SchemaName();
    rows->Rollback();
    return name;
  } catch (const store::Error&) {
    return DEFAULT_SCHEMA;  // an unreadable store fails loudly on first use instead
  }
}

MoraineSchemaEntry& MoraineCatalog::SchemaEntryNamed(const std::string& name) {
  std::lock_guard<std::mutex> lock(schemas_mutex_);
  auto& entry = schemas_[name];
  if (!entry) {
    duckdb::CreateSchemaInfo info;
    info.schema = name;
    entry = std::make_unique<MoraineSchemaEntry>(*this, info);
  }
  return *entry;
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineCatalog::CreateSchema(
    duckdb::CatalogTransaction transaction, duckdb::CreateSchemaInfo& info) {
  // DuckLake creates the schema of its METADATA_SCHEMA before the catalog
  // tables; the core decides whether this store can take that name.
  if (duckdb::StringUtil::CIEquals(info.schema, SchemaName(transaction))) {
    if (info.on_conflict == duckdb::OnCreateConflict::ERROR_ON_CONFLICT) {
      throw duckdb::CatalogException("Schema with name \"%s\" already exists!", info.schema);
    }
    return nullptr;
  }
  auto& moraine = transaction.transaction ? transaction.transaction->Cast<MoraineTransaction>()
                                          : MoraineTransaction::Get(*transaction.context, *this);
  moraine.WithRows(true, [&](commit::RowTransaction& rows) { rows.CreateSchema(info.schema); });
  return &SchemaEntryNamed(info.schema);
}

duckdb::optional_ptr<duckdb::SchemaCatalogEntry> MoraineCatalog::LookupSchema(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
    duckdb::OnEntryNotFound if_not_found) {
  const std::string served = SchemaName(transaction);
  if (duckdb::StringUtil::CIEquals(lookup.GetEntryName(), served)) {
    return &SchemaEntryNamed(served);
  }
  if (if_not_found == duckdb::OnEntryNotFound::RETURN_NULL) return nullptr;
  throw duckdb::CatalogException(
      "moraine: schema \"%s\" does not exist; this store serves its catalog under the schema "
      "\"%s\"",
      lookup.GetEntryName(), served);
}

void MoraineCatalog::ScanSchemas(duckdb::ClientContext& context,
                                 std::function<void(duckdb::SchemaCatalogEntry&)> callback) {
  callback(SchemaEntryNamed(SchemaName(duckdb::CatalogTransaction(*this, context))));
}

duckdb::PhysicalOperator& MoraineCatalog::PlanCreateTableAs(duckdb::ClientContext&,
                                                            duckdb::PhysicalPlanGenerator&,
                                                            duckdb::LogicalCreateTable&,
                                                            duckdb::PhysicalOperator&) {
  throw duckdb::NotImplementedException("moraine: CREATE TABLE AS is not supported");
}

// PlanInsert, PlanDelete and PlanUpdate live in moraine_dml.cpp.

duckdb::DatabaseSize MoraineCatalog::GetDatabaseSize(duckdb::ClientContext&) {
  return duckdb::DatabaseSize();
}

bool MoraineCatalog::InMemory() { return store_->location().starts_with("memory://"); }

duckdb::string MoraineCatalog::GetDBPath() { return store_->location(); }

void MoraineCatalog::DropSchema(duckdb::ClientContext&, duckdb::DropInfo&) {
  throw duckdb::NotImplementedException("moraine: DROP SCHEMA is not supported");
}

}  // namespace moraine::duckdb_shim
