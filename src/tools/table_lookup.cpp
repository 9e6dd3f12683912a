#include "tools/table_lookup.h"

#include <limits>
#include <map>
#include <optional>

#include "catalog/record_io.h"
#include "store/error.h"

namespace moraine::tools {
namespace {

using catalog::Id;
using store::Kind;
using store::Subspace;

struct QualifiedName {
  std::optional<std::string> schema;
  std::string table;
};

QualifiedName Split(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return {std::nullopt, name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

template <class Record, class Visit>
void ScanAllVersions(const store::KvSnapshot& snapshot, Kind kind, Visit&& visit) {
  for (Subspace subspace : {Subspace::kCurrent, Subspace::kHistory}) {
    catalog::ScanRecords<Record>(snapshot, store::PrefixRange(subspace, kind), kind, visit);
  }
}

}  // namespace

const catalog::TableState& FindTableAt(const catalog::CatalogState& state,
                                       const std::string& name) {
  const QualifiedName wanted = Split(name);
  const catalog::TableState* found = nullptr;
  for (const catalog::TableState* table : state.Tables()) {
    if (table->record.table_name() != wanted.table) continue;
    const catalog::SchemaRecord* schema = state.Schema(table->record.schema_id());
    if (wanted.schema && (!schema || schema->schema_name() != *wanted.schema)) continue;
    if (found) {
      throw store::InvalidArgumentError("table name " + name +
                                        " is ambiguous: qualify it with its schema (schema.table)");
    }
    found = table;
  }
  if (!found) {
    throw store::NotFoundError("no table " + name + " at snapshot " +
                               std::to_string(state.snapshot_id()));
  }
  return *found;
}

Id FindTableEver(const store::KvSnapshot& snapshot, const std::string& name) {
  const QualifiedName wanted = Split(name);
  std::map<Id, std::string> schema_names;  // any version's name; schemas are never renamed
  ScanAllVersions<catalog::SchemaRecord>(snapshot, Kind::kSchema,
                                         [&](const catalog::SchemaRecord& schema) {
                                           schema_names[schema.schema_id()] = schema.schema_name();
                                         });
  // The best match so far: live tables rank above every ended one, ended ones
  // by how recently they bore the name.
  constexpr int64_t kLive = std::numeric_limits<int64_t>::max();
  std::optional<Id> best;
  int64_t best_rank = -1;
  bool ambiguous = false;
  ScanAllVersions<catalog::TableRecord>(
      snapshot, Kind::kTable, [&](const catalog::TableRecord& table) {
        if (table.table_name() != wanted.table) return;
        if (wanted.schema && schema_names[table.schema_id()] != *wanted.schema) return;
        const int64_t rank = table.has_end_snapshot() ? table.end_snapshot() : kLive;
        if (rank > best_rank) {
          best = table.table_id();
          best_rank = rank;
          ambiguous = false;
        } else if (rank == best_rank && best != table.table_id()) {
          ambiguous = true;
        }
      });
  if (!best) throw store::NotFoundError("no table named " + name + " ever existed in this store");
  if (ambiguous) {
    throw store::InvalidArgumentError("table name " + name +
                                      " is ambiguous: qualify it with its schema (schema.table)");
  }
  return *best;
}

}  // namespace moraine::tools
