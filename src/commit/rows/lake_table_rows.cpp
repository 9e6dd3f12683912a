#include "commit/rows/lake_table_rows.h"

#include <algorithm>

#include "catalog/row.h"
#include "commit/rows/table_rows.h"

namespace moraine::commit {
namespace {

int64_t Int(const Cell& cell) {
  return std::holds_alternative<int64_t>(cell) ? std::get<int64_t>(cell) : 0;
}
std::string Text(const Cell& cell) { return catalog::CellAs<std::string>(cell).value_or(""); }
bool Bool(const Cell& cell) { return std::holds_alternative<bool>(cell) && std::get<bool>(cell); }

const std::vector<std::string_view> kColumnColumns = {
    "table_id",      "column_id",     "column_name",   "column_type",  "initial_default",
    "default_value", "nulls_allowed", "parent_column", "column_order", "default_value_type"};

const std::vector<std::string_view> kTableColumns = {"table_id",   "schema_id", "table_uuid",
                                                     "table_name", "path",      "path_is_relative"};

LakeColumnRow ColumnRowOf(const std::vector<size_t>& at, const Row& row,
                          const LakeTagMap& column_tags) {
  LakeColumnRow entry;
  entry.table_id = Int(row[at[0]]);
  LakeColumn& column = entry.column;
  column.id = Int(row[at[1]]);
  column.name = Text(row[at[2]]);
  column.type = Text(row[at[3]]);
  column.initial_default = catalog::CellAs<std::string>(row[at[4]]);
  column.default_value = catalog::CellAs<std::string>(row[at[5]]);
  if (column.default_value == "NULL") column.default_value.reset();
  column.nulls_allowed = Bool(row[at[6]]);
  entry.parent = catalog::CellAs<int64_t>(row[at[7]]);
  column.order = Int(row[at[8]]);
  column.default_value_type = Text(row[at[9]]);
  if (auto tags = column_tags.find({entry.table_id, column.id}); tags != column_tags.end()) {
    column.tags = tags->second;
  }
  return entry;
}

void ReadTableRowFields(const std::vector<size_t>& at, const Row& row, LakeTable& table) {
  table.id = Int(row[at[0]]);
  table.schema_id = Int(row[at[1]]);
  table.uuid = Text(row[at[2]]);
  table.name = Text(row[at[3]]);
  table.stored_path = catalog::CellAs<std::string>(row[at[4]]);
  table.path_is_relative = Bool(row[at[5]]);
}

std::vector<LakeColumn>* ChildrenOf(std::vector<LakeColumn>& columns, int64_t parent) {
  for (auto& candidate : columns) {
    if (candidate.id == parent) return &candidate.children;
    if (auto* found = ChildrenOf(candidate.children, parent)) return found;
  }
  return nullptr;
}

// Nests `entries` (one table's live column rows, in column id order) as
// DuckLake does: ORDER BY parent_column NULLS FIRST, column_order, each child
// under its parent. Returns the refusal DuckLake gives when a parent is
// missing.
std::optional<std::string> NestColumns(std::vector<LakeColumnRow>& entries, LakeTable& table) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const LakeColumnRow& a, const LakeColumnRow& b) {
                     if (a.parent.has_value() != b.parent.has_value()) return !a.parent.has_value();
                     if (a.parent && *a.parent != *b.parent) return *a.parent < *b.parent;
                     return a.column.order < b.column.order;
                   });
  for (auto& entry : entries) {
    if (!entry.parent) {
      table.columns.push_back(std::move(entry.column));
      continue;
    }
    auto* siblings = ChildrenOf(table.columns, *entry.parent);
    if (!siblings) {
      return "Failed to load DuckLake - Could not find parent column for column " +
             entry.column.name;
    }
    siblings->push_back(std::move(entry.column));
  }
  return std::nullopt;
}

}  // namespace

LakeTagMap ReadLakeTags(RowTransaction& rows, std::string_view table, bool per_column,
                        int64_t snapshot, bool at_head, std::optional<int64_t> only) {
  LakeTagMap tags;
  std::vector<std::string_view> columns =
      per_column ? std::vector<std::string_view>{"table_id", "column_id", "key", "value"}
                 : std::vector<std::string_view>{"object_id", "object_id", "key", "value"};
  TableRows(rows, table, columns)
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            const auto value = catalog::CellAs<std::string>(row[at[3]]);
            if (!value) return;
            tags[{Int(row[at[0]]), per_column ? Int(row[at[1]]) : 0}].push_back(
                {Text(row[at[2]]), *value});
          },
          only);
  return tags;
}

void ForEachLakeColumnRow(RowTransaction& rows, int64_t snapshot, bool at_head,
                          const LakeTagMap& column_tags, std::optional<int64_t> table_id,
                          std::optional<int64_t> column_id,
                          const std::function<void(LakeColumnRow)>& visit) {
  TableRows column_rows(rows, "ducklake_column", kColumnColumns);
  const auto each = [&](const std::vector<size_t>& at, const Row& row) {
    visit(ColumnRowOf(at, row, column_tags));
  };
  if (table_id && column_id) {
    column_rows.ForEachLiveWithin(snapshot, at_head, *table_id, 1, *column_id, *column_id, each);
  } else {
    column_rows.ForEachLive(snapshot, at_head, each, table_id);
  }
}

bool PlaceColumn(std::vector<LakeColumn>& columns, LakeColumnRow row) {
  auto* siblings = row.parent ? ChildrenOf(columns, *row.parent) : &columns;
  if (!siblings) return false;
  const auto after = [&](const LakeColumn& sibling) {
    return sibling.order > row.column.order ||
           (sibling.order == row.column.order && sibling.id > row.column.id);
  };
  siblings->insert(std::find_if(siblings->begin(), siblings->end(), after), std::move(row.column));
  return true;
}

bool ReadLakeTableRow(RowTransaction& rows, int64_t snapshot, bool at_head, int64_t table_id,
                      LakeTable& table) {
  bool found = false;
  TableRows(rows, "ducklake_table", kTableColumns)
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            ReadTableRowFields(at, row, table);
            found = true;
          },
          table_id);
  return found;
}

std::vector<LakeInlinedTable> ReadLakeInlinedTables(RowTransaction& rows, int64_t table_id) {
  std::vector<LakeInlinedTable> inlined;
  TableRows(rows, "ducklake_inlined_data_tables", {"table_id", "table_name", "schema_version"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        inlined.push_back({Text(row[at[1]]), Int(row[at[2]])});
      });
  return inlined;
}

std::vector<LakeTableLoad> ReadLakeTableLoads(RowTransaction& rows, int64_t snapshot, bool at_head,
                                              const LakeTagMap& table_tags,
                                              std::optional<int64_t> only) {
  const auto column_tags = ReadLakeTags(rows, "ducklake_column_tag", true, snapshot, at_head, only);

  std::map<int64_t, std::vector<LakeInlinedTable>> inlined;
  TableRows(rows, "ducklake_inlined_data_tables", {"table_id", "table_name", "schema_version"})
      .ForEachLive(
          snapshot, false,
          [&](const std::vector<size_t>& at, const Row& row) {
            inlined[Int(row[at[0]])].push_back({Text(row[at[1]]), Int(row[at[2]])});
          },
          only);

  std::map<int64_t, std::vector<LakeColumnRow>> columns;  // by table
  ForEachLakeColumnRow(rows, snapshot, at_head, column_tags, only, std::nullopt,
                       [&](LakeColumnRow row) { columns[row.table_id].push_back(std::move(row)); });

  std::vector<LakeTableLoad> loads;
  TableRows(rows, "ducklake_table", kTableColumns)
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            LakeTable& table = loads.emplace_back().table;
            ReadTableRowFields(at, row, table);
            if (auto tags = table_tags.find({table.id, 0}); tags != table_tags.end()) {
              table.tags = tags->second;
            }
            if (auto found = inlined.find(table.id); found != inlined.end()) {
              table.inlined_data_tables = found->second;
            }
          },
          only);
  // Rows come in the order they were written: id order until a table is
  // altered after a later one was created. Sorted only then.
  const auto by_id = [](const LakeTableLoad& a, const LakeTableLoad& b) {
    return a.table.id < b.table.id;
  };
  if (!std::is_sorted(loads.begin(), loads.end(), by_id)) {
    std::sort(loads.begin(), loads.end(), by_id);
  }

  TableRows column_rows(rows, "ducklake_column", kColumnColumns);
  for (auto& load : loads) {
    auto found = columns.find(load.table.id);
    if (found == columns.end()) {
      // A table none of whose column versions is live drops out of DuckLake's
      // join; one with no column rows at all is refused. Rare: looked up by
      // key only then.
      bool has_column_rows = false;
      column_rows.ForEachWithKey(
          load.table.id, [&](const std::vector<size_t>&, const Row&) { has_column_rows = true; });
      if (has_column_rows) {
        load.without_live_columns = true;
      } else {
        load.refusal = "Failed to load DuckLake - Table entry \"" + load.table.name +
                       "\" does not have any columns";
      }
      continue;
    }
    load.refusal = NestColumns(found->second, load.table);
  }
  return loads;
}

}  // namespace moraine::commit
