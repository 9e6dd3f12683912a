#include "duckdb_shim/moraine_catalog.h"

#include <set>

#include "commit/catalog_version_raise.h"
#include "commit/store_format.h"
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
namespace {

bool SameShape(const commit::TableSpec& a, const commit::TableSpec& b) {
  return a.name == b.name && a.columns == b.columns && a.primary_key == b.primary_key;
}

// Specs carry SQL type names; nested user types need the full parser, which
// wants a client context. Without one (catalog scans outside a query) the
// config-level parser still handles every type of the fixed tables.
duckdb::LogicalType ParseType(const std::string& type,
                              duckdb::optional_ptr<duckdb::ClientContext> context) {
  if (context) return duckdb::TransformStringToLogicalType(type, *context);
  return duckdb::DBConfig::ParseLogicalType(type);
}

// The TableSpec DuckDB's CREATE TABLE describes.
commit::TableSpec SpecOf(const duckdb::CreateTableInfo& info) {
  commit::TableSpec spec;
  spec.name = info.table;
  for (auto& column : info.columns.Logical()) {
    spec.columns.push_back({column.Name(), column.Type().ToString(), true});
  }
  for (auto& constraint : info.constraints) {
    if (constraint->type == duckdb::ConstraintType::NOT_NULL) {
      auto index = constraint->Cast<duckdb::NotNullConstraint>().index.index;
      if (index < spec.columns.size()) spec.columns[index].nullable = false;
    } else if (constraint->type == duckdb::ConstraintType::UNIQUE) {
      auto& unique = constraint->Cast<duckdb::UniqueConstraint>();
      if (!unique.IsPrimaryKey()) {
        throw duckdb::NotImplementedException("moraine: UNIQUE constraints are not supported");
      }
      if (unique.HasIndex()) {
        spec.primary_key.push_back(info.columns.GetColumn(unique.GetIndex()).Name());
      } else {
        for (auto& name : unique.GetColumnNames()) spec.primary_key.push_back(name);
      }
    } else {
      throw duckdb::NotImplementedException("moraine: constraint %s is not supported",
                                            constraint->ToString());
    }
  }
  return spec;
}

}  // namespace

// ---------------------------------------------------------------- table entry

MoraineTableEntry::MoraineTableEntry(duckdb::Catalog& owning_catalog,
                                     duckdb::SchemaCatalogEntry& owner,
                                     duckdb::CreateTableInfo& info, commit::TableSpec spec,
                                     std::vector<ColumnCodec> codecs)
    : duckdb::TableCatalogEntry(owning_catalog, owner, info),
      spec_(std::move(spec)),
      codecs_(std::move(codecs)) {}

duckdb::unique_ptr<duckdb::BaseStatistics> MoraineTableEntry::GetStatistics(duckdb::ClientContext&,
                                                                            duckdb::column_t) {
  return nullptr;
}

duckdb::TableStorageInfo MoraineTableEntry::GetStorageInfo(duckdb::ClientContext&) {
  return duckdb::TableStorageInfo();
}

// GetScanFunction lives in moraine_scan.cpp.

// ---------------------------------------------------------------- schema

MoraineSchemaEntry::MoraineSchemaEntry(duckdb::Catalog& owning_catalog,
                                       duckdb::CreateSchemaInfo& info, CatalogStore where)
    : duckdb::SchemaCatalogEntry(owning_catalog, info), where_(std::move(where)) {}

MoraineTransaction& MoraineSchemaEntry::TransactionOf(duckdb::CatalogTransaction transaction) {
  if (transaction.transaction) return transaction.transaction->Cast<MoraineTransaction>();
  if (transaction.context) return MoraineTransaction::Get(*transaction.context, ParentCatalog());
  throw duckdb::InternalException("moraine: catalog access without a transaction");
}

MoraineTableEntry& MoraineSchemaEntry::EntryFor(
    const commit::TableSpec& spec, duckdb::optional_ptr<duckdb::ClientContext> context) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& versions = entries_[spec.name];
    for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
      if (SameShape((*it)->spec(), spec)) return **it;
    }
  }
  // Parse outside the lock: the parser may look up types in this catalog.
  duckdb::CreateTableInfo info(*this, spec.name);
  std::vector<ColumnCodec> codecs;
  for (size_t i = 0; i < spec.columns.size(); i++) {
    auto column_type = ParseType(spec.columns[i].type, context);
    codecs.push_back(CodecFor(spec.name, i, column_type));
    info.columns.AddColumn(duckdb::ColumnDefinition(spec.columns[i].name, column_type));
  }
  auto entry =
      std::make_unique<MoraineTableEntry>(ParentCatalog(), *this, info, spec, std::move(codecs));
  std::lock_guard<std::mutex> lock(mutex_);
  auto& versions = entries_[spec.name];
  versions.push_back(std::move(entry));
  return *versions.back();
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::LookupEntry(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup) {
  if (lookup.GetCatalogType() != duckdb::CatalogType::TABLE_ENTRY) return nullptr;
  auto spec = TransactionOf(transaction).WithRows(where_, false, [&](commit::RowTransaction& rows) {
    return rows.FindTable(lookup.GetEntryName());
  });
  // nullptr becomes DuckDB's CatalogException, which DuckLake's existence
  // probes rely on.
  if (!spec) return nullptr;
  return &EntryFor(*spec, transaction.context);
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::CreateTable(
    duckdb::CatalogTransaction transaction, duckdb::BoundCreateTableInfo& info) {
  auto& base = info.Base();
  auto requested = SpecOf(base);
  auto created =
      TransactionOf(transaction)
          .WithRows(where_, true,
                    [&](commit::RowTransaction& rows) -> std::optional<commit::TableSpec> {
                      if (rows.FindTable(requested.name)) {
                        switch (base.on_conflict) {
                          case duckdb::OnCreateConflict::IGNORE_ON_CONFLICT:
                            return std::nullopt;
                          case duckdb::OnCreateConflict::REPLACE_ON_CONFLICT:
                            rows.DropTable(requested.name);
                            break;
                          default:
                            throw duckdb::CatalogException("Table with name \"%s\" already exists!",
                                                           requested.name);
                        }
                      }
                      rows.CreateTable(requested);
                      return rows.FindTable(requested.name);
                    });
  if (!created) return nullptr;
  return &EntryFor(*created, transaction.context);
}

void MoraineSchemaEntry::DropEntry(duckdb::ClientContext& context, duckdb::DropInfo& info) {
  if (info.type != duckdb::CatalogType::TABLE_ENTRY) {
    throw duckdb::NotImplementedException("moraine: only tables can be dropped");
  }
  MoraineTransaction::Get(context, ParentCatalog())
      .WithRows(where_, true, [&](commit::RowTransaction& rows) {
        if (!rows.FindTable(info.name)) {
          if (info.if_not_found == duckdb::OnEntryNotFound::RETURN_NULL) return;
          throw duckdb::CatalogException("Table with name \"%s\" does not exist!", info.name);
        }
        rows.DropTable(info.name);
      });
}

void MoraineSchemaEntry::Scan(duckdb::ClientContext& context, duckdb::CatalogType entry_type,
                              const std::function<void(duckdb::CatalogEntry&)>& callback) {
  if (entry_type != duckdb::CatalogType::TABLE_ENTRY) return;
  auto specs = MoraineTransaction::Get(context, ParentCatalog())
                   .WithRows(where_, false, [&](commit::RowTransaction& rows) {
                     std::vector<commit::TableSpec> result;
                     for (auto& table_name : rows.TableNames()) {
                       if (auto spec = rows.FindTable(table_name))
                         result.push_back(std::move(*spec));
                     }
                     return result;
                   });
  for (auto& spec : specs) callback(EntryFor(spec, &context));
}

void MoraineSchemaEntry::Scan(duckdb::CatalogType entry_type,
                              const std::function<void(duckdb::CatalogEntry&)>& callback) {
  if (entry_type != duckdb::CatalogType::TABLE_ENTRY) return;
  // No client context, hence no DuckDB transaction: read through a private
  // row transaction that is rolled back at once.
  std::vector<commit::TableSpec> specs;
  try {
    auto rows = commit::BeginRowTransaction(where_.store, where_.shape);
    for (auto& table_name : rows->TableNames()) {
      if (auto spec = rows->FindTable(table_name)) specs.push_back(std::move(*spec));
    }
    rows->Rollback();
  } catch (const store::Error& error) {
    ThrowAsDuckDB(error);
  }
  for (auto& spec : specs) callback(EntryFor(spec, nullptr));
}

void MoraineSchemaEntry::Alter(duckdb::CatalogTransaction, duckdb::AlterInfo&) {
  throw duckdb::NotImplementedException("moraine: ALTER is not supported on a moraine catalog");
}

#define MORAINE_UNSUPPORTED_CREATE(Method, Info)                                    \
  duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::Method(            \
      duckdb::CatalogTransaction, duckdb::Info&) {                                  \
    throw duckdb::NotImplementedException("moraine: " #Method " is not supported"); \
  }
MORAINE_UNSUPPORTED_CREATE(CreateFunction, CreateFunctionInfo)
MORAINE_UNSUPPORTED_CREATE(CreateView, CreateViewInfo)
MORAINE_UNSUPPORTED_CREATE(CreateSequence, CreateSequenceInfo)
MORAINE_UNSUPPORTED_CREATE(CreateTableFunction, CreateTableFunctionInfo)
MORAINE_UNSUPPORTED_CREATE(CreateCopyFunction, CreateCopyFunctionInfo)
MORAINE_UNSUPPORTED_CREATE(CreatePragmaFunction, CreatePragmaFunctionInfo)
MORAINE_UNSUPPORTED_CREATE(CreateCollation, CreateCollationInfo)
MORAINE_UNSUPPORTED_CREATE(CreateType, CreateTypeInfo)
#undef MORAINE_UNSUPPORTED_CREATE

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::CreateIndex(
    duckdb::CatalogTransaction, duckdb::CreateIndexInfo&, duckdb::TableCatalogEntry&) {
  throw duckdb::NotImplementedException("moraine: CreateIndex is not supported");
}

// ---------------------------------------------------------------- catalog

MoraineCatalog::MoraineCatalog(duckdb::AttachedDatabase& attached, CatalogStore catalog,
                               StoreOpener open_nested)
    : duckdb::Catalog(attached),
      catalog_(std::move(catalog)),
      open_nested_(std::move(open_nested)) {}

MoraineCatalog::~MoraineCatalog() = default;

void MoraineCatalog::Initialize(bool) {}

MoraineTransaction& MoraineCatalog::TransactionOf(duckdb::CatalogTransaction transaction) {
  if (transaction.transaction) return transaction.transaction->Cast<MoraineTransaction>();
  if (transaction.context) return MoraineTransaction::Get(*transaction.context, *this);
  throw duckdb::InternalException("moraine: catalog access without a transaction");
}

std::string MoraineCatalog::SchemaName(MoraineTransaction& transaction) {
  return transaction.WithRows(false,
                              [](commit::RowTransaction& rows) { return rows.SchemaName(); });
}

duckdb::string MoraineCatalog::GetDefaultSchema() const {
  try {
    auto rows = commit::BeginRowTransaction(catalog_.store, catalog_.shape);
    auto name = rows->SchemaName();
    rows->Rollback();
    return name;
  } catch (const store::Error&) {
    return DEFAULT_SCHEMA;  // an unreadable store fails loudly on first use instead
  }
}

std::optional<CatalogStore> MoraineCatalog::NestedCatalog(MoraineTransaction& transaction,
                                                          const std::string& schema, bool create) {
  std::optional<CatalogStore> found;
  {
    std::lock_guard<std::mutex> lock(schemas_mutex_);
    if (auto it = nested_.find(schema); it != nested_.end()) found = it->second;
  }
  if (!found) {
    std::shared_ptr<store::KvStore> opened;
    catalog::CatalogVersion shape = catalog_.shape;
    try {
      opened =
          open_nested_(store::NestedCatalogLocation(catalog_.store->location(), schema), create);
      if (!opened) return std::nullopt;
      commit::RequireCurrentStoreFormat(*opened);
      shape = commit::ServedCatalogVersion(opened);
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
    std::lock_guard<std::mutex> lock(schemas_mutex_);
    found = nested_.emplace(schema, CatalogStore::Of(std::move(opened), shape)).first->second;
  }
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
    info.schema = name;
    entry = std::make_unique<MoraineSchemaEntry>(*this, info, where);
  }
  return *entry;
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineCatalog::CreateSchema(
    duckdb::CatalogTransaction transaction, duckdb::CreateSchemaInfo& info) {
  auto& moraine = TransactionOf(transaction);
  auto exists = [&]() -> duckdb::optional_ptr<duckdb::CatalogEntry> {
    if (info.on_conflict == duckdb::OnCreateConflict::ERROR_ON_CONFLICT) {
      throw duckdb::CatalogException("Schema with name \"%s\" already exists!", info.schema);
    }
    return nullptr;
  };
  // DuckLake creates the schema of its METADATA_SCHEMA before the catalog
  // tables. The store's own catalog takes the first name it is given; every
  // other schema gets a catalog nested in the store.
  if (duckdb::StringUtil::CIEquals(info.schema, SchemaName(moraine))) return exists();
  const bool unclaimed = moraine.WithRows(false, [](commit::RowTransaction& rows) {
    return !rows.LatestSnapshot() &&
           duckdb::StringUtil::CIEquals(rows.SchemaName(), std::string(commit::kDefaultSchemaName));
  });
  if (unclaimed) {
    moraine.WithRows(true, [&](commit::RowTransaction& rows) { rows.CreateSchema(info.schema); });
    return &SchemaEntryNamed(info.schema, catalog_);
  }
  if (NestedCatalog(moraine, info.schema, false)) return exists();
  auto nested = NestedCatalog(moraine, info.schema, true);
  if (!nested) {
    throw duckdb::InvalidInputException(
        "cannot create the catalog of schema \"%s\" in the read-only moraine store at %s",
        info.schema, catalog_.store->location());
  }
  return &SchemaEntryNamed(info.schema, *nested);
}

duckdb::optional_ptr<duckdb::SchemaCatalogEntry> MoraineCatalog::LookupSchema(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
    duckdb::OnEntryNotFound if_not_found) {
  auto& moraine = TransactionOf(transaction);
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
    std::shared_ptr<store::KvStore> opened;
    try {
      opened = open_nested_(location, false);
      if (!opened) continue;
      commit::RequireCurrentStoreFormat(*opened);
      nested.push_back(CatalogStore::Of(opened, commit::ServedCatalogVersion(opened)));
    } catch (const store::Error& error) {
      ThrowAsDuckDB(error);
    }
  }
  {
    std::lock_guard<std::mutex> lock(schemas_mutex_);
    for (const auto& [name, where] : nested_) nested.push_back(where);
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
