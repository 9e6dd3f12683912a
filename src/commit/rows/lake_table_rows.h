// Reading DuckLake's tables from their rows, as DuckLake's catalog load joins
// them: each live table with its columns (nested under their parents in
// DuckLake's order), their tags, its own tags and its inlined data tables.
// Shared by the catalog load (commit/lake/lake_catalog.h) and the head table
// images a commit writes (head_table_image.h), so both make a table alike.
//
// Thread-safety: each function uses the RowTransaction it is given, which
// the caller serializes (as every RowTransaction use).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commit/rows/lake_table.h"
#include "commit/rows/row_transaction.h"

namespace moraine::commit {

// One live table row as the load finds it. `table.path` is left empty: the
// caller resolves stored_path against the table's schema.
struct LakeTableLoad {
  LakeTable table;
  // It has column rows but none live at the snapshot: DuckLake's join drops
  // the table from the catalog.
  bool without_live_columns = false;
  // DuckLake refuses to load a catalog holding this table, in these words
  // (a table without any column rows, a column whose parent is missing).
  std::optional<std::string> refusal;
};

// Tags live at `snapshot` of every object (ducklake_tag, keyed {object_id,
// 0}) or of every column (ducklake_column_tag, keyed {table_id, column_id}),
// in scan order; a tag whose value is NULL is skipped, as DuckLake skips it.
// `only`: those of that object or table.
using LakeTagMap = std::map<std::pair<int64_t, int64_t>, std::vector<LakeTag>>;
LakeTagMap ReadLakeTags(RowTransaction& rows, std::string_view table, bool per_column,
                        int64_t snapshot, bool at_head, std::optional<int64_t> only = std::nullopt);

// One live ducklake_column row as the load reads it: its table, its parent
// column (none for a top-level column) and the column, its tags attached.
struct LakeColumnRow {
  int64_t table_id = 0;
  std::optional<int64_t> parent;
  LakeColumn column;
};
// The ducklake_column rows live at `snapshot`, in key order (table, column
// id); `table_id`: of that table only; `column_id` (with a table): of that
// column only. `column_tags`: ReadLakeTags of ducklake_column_tag (at least
// these columns').
void ForEachLakeColumnRow(RowTransaction& rows, int64_t snapshot, bool at_head,
                          const LakeTagMap& column_tags, std::optional<int64_t> table_id,
                          std::optional<int64_t> column_id,
                          const std::function<void(LakeColumnRow)>& visit);

// Places `row`'s column among `columns` (a table's, nested) as DuckLake's
// load orders them: under its parent, among siblings by column_order, ties
// by column id. False when its parent is not there.
bool PlaceColumn(std::vector<LakeColumn>& columns, LakeColumnRow row);

// The fields of `table` its ducklake_table row gives (id, schema, uuid,
// name, stored path), from the row live at `snapshot`; false when none is.
bool ReadLakeTableRow(RowTransaction& rows, int64_t snapshot, bool at_head, int64_t table_id,
                      LakeTable& table);
// The inlined data tables of table `table_id`, in key order.
std::vector<LakeInlinedTable> ReadLakeInlinedTables(RowTransaction& rows, int64_t table_id);

// The tables live at `snapshot` (`at_head`: it is the newest) in id order;
// `only`: just the table of that id, if live. `table_tags`: ReadLakeTags of
// ducklake_tag at the same snapshot (at least the tables' own).
std::vector<LakeTableLoad> ReadLakeTableLoads(RowTransaction& rows, int64_t snapshot, bool at_head,
                                              const LakeTagMap& table_tags,
                                              std::optional<int64_t> only);

}  // namespace moraine::commit
