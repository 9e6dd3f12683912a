#include "commit/lake/genesis.h"

#include <utility>

#include "catalog/ducklake_tables.h"
#include "catalog/records.h"
#include "catalog/uuid.h"
#include "commit/lake/store_records.h"
#include "commit/verbs/catalog_rows.h"

namespace moraine::commit {
namespace {

TableSpec SpecOf(const catalog::CatalogTable& table) {
  TableSpec spec;
  spec.name = std::string(table.name);
  for (const catalog::TableColumn& column : table.columns) {
    spec.columns.push_back({std::string(column.name),
                            std::string(catalog::CellTypeName(column.type)), column.nullable});
  }
  for (std::string_view key : table.primary_key) spec.primary_key.emplace_back(key);
  return spec;
}

}  // namespace

void StageGenesis(RowTransaction& rows, const std::string& data_path, int64_t now_micros) {
  for (const catalog::CatalogTable& table : catalog::CatalogTablesV1_0()) {
    rows.CreateTable(SpecOf(table));
  }
  CatalogRows records(rows);

  catalog::SnapshotRecord snapshot;
  snapshot.set_snapshot_id(0);
  snapshot.set_snapshot_time(now_micros);
  snapshot.set_schema_version(0);
  snapshot.set_next_catalog_id(1);
  snapshot.set_next_file_id(0);
  snapshot.set_changes_made("created_schema:\"main\"");
  records.Insert("ducklake_snapshot", snapshot);
  records.Insert("ducklake_snapshot_changes", snapshot);

  catalog::OptionRecord options;  // the global scope: scope and scope_id NULL
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"version", "1.0"},
                                   {"created_by", kWrittenBy},
                                   {"data_path", data_path},
                                   {"encrypted", "false"}}) {
    auto* entry = options.add_entries();
    entry->set_key(key);
    entry->set_value(value);
  }
  records.InsertEntries("ducklake_metadata", options);

  catalog::SchemaRecord main;
  main.set_schema_id(0);
  main.set_schema_uuid(catalog::NewUuid());
  main.set_begin_snapshot(0);
  main.set_schema_name("main");
  main.set_path("main/");
  main.set_path_is_relative(true);
  records.Insert("ducklake_schema", main);
}

}  // namespace moraine::commit
