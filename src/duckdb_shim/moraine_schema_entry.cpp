#include "duckdb_shim/moraine_schema_entry.h"

#include <map>

#include "duckdb/catalog/entry_lookup_info.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/constraints/not_null_constraint.hpp"
#include "duckdb/parser/constraints/unique_constraint.hpp"
#include "duckdb/parser/parsed_data/create_schema_info.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/parser/parsed_data/drop_info.hpp"
#include "duckdb/planner/parsed_data/bound_create_table_info.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/moraine_catalog.h"
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
  spec.name = CreatedTableName(info);
  for (auto& column : info.columns.Logical()) {
    spec.columns.push_back({Text(column.Name()), column.Type().ToString(), true});
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
        spec.primary_key.push_back(Text(info.columns.GetColumn(unique.GetIndex()).Name()));
      } else {
        for (auto& name : unique.GetColumnNames()) spec.primary_key.push_back(Text(name));
      }
    } else {
      throw duckdb::NotImplementedException("moraine: constraint %s is not supported",
                                            constraint->ToString());
    }
  }
  return spec;
}

}  // namespace

MoraineSchemaEntry::MoraineSchemaEntry(duckdb::Catalog& owning_catalog,
                                       duckdb::CreateSchemaInfo& info, CatalogStore where)
    : duckdb::SchemaCatalogEntry(owning_catalog, info), where_(std::move(where)) {}

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
  duckdb::CreateTableInfo info(*this, AsName(spec.name));
  std::vector<ColumnCodec> codecs;
  // A wide table repeats a few types: parse each once.
  std::map<std::string, duckdb::LogicalType> parsed;
  for (size_t i = 0; i < spec.columns.size(); i++) {
    auto known = parsed.find(spec.columns[i].type);
    if (known == parsed.end()) {
      known = parsed.emplace(spec.columns[i].type, ParseType(spec.columns[i].type, context)).first;
    }
    const auto& column_type = known->second;
    codecs.push_back(CodecFor(spec.name, i, column_type));
    info.columns.AddColumn(duckdb::ColumnDefinition(AsName(spec.columns[i].name), column_type));
  }
  auto entry =
      std::make_unique<MoraineTableEntry>(ParentCatalog(), *this, info, spec, std::move(codecs));
  std::lock_guard<std::mutex> lock(mutex_);
  auto& versions = entries_[spec.name];
  versions.push_back(std::move(entry));
  return *versions.back();
}

size_t MoraineSchemaEntry::BuiltEntryCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (auto& [table_name, versions] : entries_) count += versions.size();
  return count;
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::LookupEntry(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup) {
  if (lookup.GetCatalogType() != duckdb::CatalogType::TABLE_ENTRY) return nullptr;
  auto spec = MoraineTransaction::Get(transaction, ParentCatalog())
                  .WithRows(where_, false, [&](commit::RowTransaction& rows) {
                    return rows.FindTable(lookup.GetEntryName());
                  });
  // nullptr becomes DuckDB's CatalogException, which DuckLake's existence
  // probes rely on.
  if (!spec) return nullptr;
  return &EntryFor(*spec, transaction.context);
}

bool MoraineSchemaEntry::CreateTableOfSpec(duckdb::CatalogTransaction transaction,
                                           const commit::TableSpec& spec,
                                           duckdb::OnCreateConflict on_conflict) {
  return MoraineTransaction::Get(transaction, ParentCatalog())
      .WithRows(where_, true, [&](commit::RowTransaction& rows) {
        if (rows.FindTable(spec.name)) {
          switch (on_conflict) {
            case duckdb::OnCreateConflict::IGNORE_ON_CONFLICT:
              return false;
            case duckdb::OnCreateConflict::REPLACE_ON_CONFLICT:
              rows.DropTable(spec.name);
              break;
            default:
              throw duckdb::CatalogException("Table with name \"%s\" already exists!", spec.name);
          }
        }
        rows.CreateTable(spec);
        return true;
      });
}

duckdb::optional_ptr<duckdb::CatalogEntry> MoraineSchemaEntry::CreateTable(
    duckdb::CatalogTransaction transaction, duckdb::BoundCreateTableInfo& info) {
  auto& base = info.Base();
  const auto requested = SpecOf(base);
  if (!CreateTableOfSpec(transaction, requested, base.on_conflict)) return nullptr;
  const auto created = MoraineTransaction::Get(transaction, ParentCatalog())
                           .WithRows(where_, false, [&](commit::RowTransaction& rows) {
                             return rows.FindTable(requested.name);
                           });
  if (!created) return nullptr;
  return &EntryFor(*created, transaction.context);
}

void MoraineSchemaEntry::DropEntry(duckdb::ClientContext& context, duckdb::DropInfo& info) {
  if (info.type != duckdb::CatalogType::TABLE_ENTRY) {
    throw duckdb::NotImplementedException("moraine: only tables can be dropped");
  }
  const std::string table = DroppedName(info);
  MoraineTransaction::Get(context, ParentCatalog())
      .WithRows(where_, true, [&](commit::RowTransaction& rows) {
        if (!rows.FindTable(table)) {
          if (info.if_not_found == duckdb::OnEntryNotFound::RETURN_NULL) return;
          throw duckdb::CatalogException("Table with name \"%s\" does not exist!", table);
        }
        rows.DropTable(table);
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

duckdb::SimilarCatalogEntry MoraineSchemaEntry::GetSimilarEntry(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup) {
  duckdb::SimilarCatalogEntry result;
  if (lookup.GetCatalogType() != duckdb::CatalogType::TABLE_ENTRY) return result;
  auto names =
      MoraineTransaction::Get(transaction, ParentCatalog())
          .WithRows(where_, false, [&](commit::RowTransaction& rows) { return rows.TableNames(); });
  for (auto& table_name : names) {
    auto score = duckdb::StringUtil::SimilarityRating(table_name, lookup.GetEntryName());
    if (score > result.score) {
      result.score = score;
      result.name = AsName(table_name);
    }
  }
  return result;
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

}  // namespace moraine::duckdb_shim
