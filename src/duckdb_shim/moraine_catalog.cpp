#include "duckdb_shim/moraine_catalog.h"

#include <set>

#include "commit/migrations/catalog_version_raise.h"
#include "commit/migrations/store_format.h"
#include "store/nested_catalog_location.h"

#include "duckdb/catalog/entry_lookup_info.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/constraints/not_null_constraint.hpp"
#include "duckdb/parser/constraints/unique_constraint.hpp"
#include "duckdb/parser/parsed_data/create_schema_info.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/parser/parsed_data/drop_info.hpp"
#include "duckdb/planner/parsed_data/bound_create_table_info.hpp"
#include "duckdb/storage/database_size.hpp"
#include "duckdb/storage/table_storage_info.hpp"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {

// ---------------------------------------------------------------- catalog

MoraineCatalog::MoraineCatalog(duckdb::AttachedDatabase& attached, CatalogStore catalog,
                               StoreOpener open_nested)
    : duckdb::Catalog(attached),
      catalog_(std::move(catalog)),
      open_nested_(std::move(open_nested)) {}

MoraineCatalog::~MoraineCatalog() = default;

void MoraineCatalog::Initialize(bool) {}

std::string MoraineCatalog::SchemaName(MoraineTransaction& transaction) {
  return transaction.WithRows(false,
                              [](commit::RowTransaction& rows) { return rows.SchemaName(); });
}

DefaultSchema MoraineCatalog::GetDefaultSchema() const {
  try {
    auto rows = commit::BeginRowTransaction(catalog_.store, catalog_.shape);
    auto name = rows->SchemaName();
    rows->Rollback();
    return DefaultSchema(AsName(name));
  } catch (const store::Error&) {
    // An unreadable store fails loudly on first use instead.
    return DefaultSchema(AsName(DEFAULT_SCHEMA));
  }
}

std::optional<CatalogStore> MoraineCatalog::OpenNested(const std::string& location, bool create) {
  {
    std::lock_guard<std::mutex> lock(schemas_mutex_);
    if (auto it = nested_.find(location); it != nested_.end()) return it->second;
  }
  std::shared_ptr<commit::CatalogCachingStore> opened;
  catalog::CatalogVersion shape = catalog_.shape;
  try {
    opened = open_nested_(location, create);
    if (!opened) return std::nullopt;
    commit::RequireCurrentStoreFormat(*opened);
    shape = commit::ServedCatalogVersion(opened);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  std::lock_guard<std::mutex> lock(schemas_mutex_);
  return nested_.emplace(location, CatalogStore{std::move(opened), shape}).first->second;
}

std::optional<CatalogStore> MoraineCatalog::NestedCatalog(MoraineTransaction& transaction,
                                                          const std::string& schema, bool create) {
  std::optional<CatalogStore> found;
  try {
    const std::string& root = catalog_.store->location();
    const std::string location = store::NestedCatalogLocation(root, schema);
    found = OpenNested(location, false);
    if (!found) {
      if (auto legacy = store::LegacyNestedCatalogLocation(root, schema)) {
        found = OpenNested(*legacy, false);
      }
    }
    if (!found && create) found = OpenNested(location, true);
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  if (!found) return std::nullopt;
  // A store holds a catalog once DuckLake's first commit to it landed, or
  // while this transaction names its schema. A store left by a rolled-back
  // creation holds neither.
  const bool holds = transaction.WithRows(*found, create, [&](commit::RowTransaction& rows) {
    if (rows.LatestSnapshot()) return true;
    if (duckdb::StringUtil::CIEquals(rows.SchemaName(), schema)) return true;
    if (!create) return false;
    rows.CreateSchema(schema);
    return true;
  });
  if (!holds) return std::nullopt;
  return found;
}

std::optional<CatalogStore> MoraineCatalog::StoreOfSchema(MoraineTransaction& transaction,
                                                          const std::string& schema) {
  if (duckdb::StringUtil::CIEquals(schema, SchemaName(transaction))) return catalog_;
  return NestedCatalog(transaction, schema, false);
}

MoraineSchemaEntry& MoraineCatalog::SchemaEntryNamed(const std::string& name,
                                                     const CatalogStore& where) {
  std::lock_guard<std::mutex> lock(schemas_mutex_);
  auto& entry = schemas_[name];
  if (!entry || entry->catalog_store().store != where.store) {
    // A name served by another store than before (a nested catalog created
    // after a lookup missed) gets an entry of its own; the old one stays
    // alive for the plans that hold it.
    if (entry) retired_schemas_.push_back(std::move(entry));
    duckdb::CreateSchemaInfo info;
    NameCreatedSchema(info, name);
    entry = std::make_unique<MoraineSchemaEntry>(*this, info, where);
  }
  return *entry;
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineCatalog::CreateSchema(
    duckdb::CatalogTransaction transaction, duckdb::CreateSchemaInfo& info) {
  auto& moraine = MoraineTransaction::Get(transaction, *this);
  const std::string name = CreatedSchemaName(info);
  auto exists = [&]() -> duckdb::optional_ptr<duckdb::CatalogEntry> {
    if (info.on_conflict == duckdb::OnCreateConflict::ERROR_ON_CONFLICT) {
      throw duckdb::CatalogException("Schema with name \"%s\" already exists!", name);
    }
    return nullptr;
  };
  // DuckLake creates the schema of its METADATA_SCHEMA before the catalog
  // tables. The store's own catalog takes the first name it is given; every
  // other schema gets a catalog nested in the store.
  if (duckdb::StringUtil::CIEquals(name, SchemaName(moraine))) return exists();
  const bool unclaimed = moraine.WithRows(false, [](commit::RowTransaction& rows) {
    return !rows.LatestSnapshot() &&
           duckdb::StringUtil::CIEquals(rows.SchemaName(), std::string(commit::kDefaultSchemaName));
  });
  if (unclaimed) {
    moraine.WithRows(true, [&](commit::RowTransaction& rows) { rows.CreateSchema(name); });
    return &SchemaEntryNamed(name, catalog_);
  }
  if (NestedCatalog(moraine, name, false)) return exists();
  auto nested = NestedCatalog(moraine, name, true);
  if (!nested) {
    throw duckdb::InvalidInputException(
        "cannot create the catalog of schema \"%s\" in the read-only moraine store at %s", name,
        catalog_.store->location());
  }
  return &SchemaEntryNamed(name, *nested);
}

duckdb::optional_ptr<duckdb::SchemaCatalogEntry> MoraineCatalog::LookupSchema(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
    duckdb::OnEntryNotFound if_not_found) {
  auto& moraine = MoraineTransaction::Get(transaction, *this);
  const std::string served = SchemaName(moraine);
  if (duckdb::StringUtil::CIEquals(lookup.GetEntryName(), served)) {
    return &SchemaEntryNamed(served, catalog_);
  }
  if (auto nested = NestedCatalog(moraine, lookup.GetEntryName(), false)) {
    return &SchemaEntryNamed(lookup.GetEntryName(), *nested);
  }
  if (if_not_found == duckdb::OnEntryNotFound::RETURN_NULL) return nullptr;
  throw duckdb::CatalogException(
      "moraine: schema \"%s\" does not exist; this store serves its catalog under the schema "
      "\"%s\"",
      lookup.GetEntryName(), served);
}

void MoraineCatalog::ScanSchemas(duckdb::ClientContext& context,
                                 std::function<void(duckdb::SchemaCatalogEntry&)> callback) {
  auto& moraine = MoraineTransaction::Get(context, *this);
  callback(SchemaEntryNamed(SchemaName(moraine), catalog_));
  // Nested catalogs: those in the store's directory, and those opened here.
  std::vector<CatalogStore> nested;
  for (const auto& location : store::ListNestedCatalogLocations(catalog_.store->location())) {
    if (auto where = OpenNested(location, false)) nested.push_back(*where);
  }
  {
    std::lock_guard<std::mutex> lock(schemas_mutex_);
    for (const auto& [location, where] : nested_) nested.push_back(where);
  }
  std::set<store::KvStore*> seen;
  for (const auto& where : nested) {
    if (!seen.insert(where.store.get()).second) continue;
    auto name = moraine.WithRows(where, false, [](commit::RowTransaction& rows) {
      return rows.LatestSnapshot() ? std::optional<std::string>(rows.SchemaName()) : std::nullopt;
    });
    if (name) callback(SchemaEntryNamed(*name, where));
  }
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

bool MoraineCatalog::InMemory() { return catalog_.store->location().starts_with("memory://"); }

duckdb::string MoraineCatalog::GetDBPath() { return catalog_.store->location(); }

void MoraineCatalog::DropSchema(duckdb::ClientContext&, duckdb::DropInfo&) {
  throw duckdb::NotImplementedException("moraine: DROP SCHEMA is not supported");
}

}  // namespace moraine::duckdb_shim
