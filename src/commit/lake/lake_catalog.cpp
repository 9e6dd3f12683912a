#include "commit/lake/lake_catalog.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>

#include "commit/lake/ducklake_path.h"
#include "commit/rows/table_rows.h"
#include "store/error.h"

namespace moraine::commit {
namespace {

int64_t Int(const Cell& cell) {
  return std::holds_alternative<int64_t>(cell) ? std::get<int64_t>(cell) : 0;
}
std::string Text(const Cell& cell) { return catalog::CellAs<std::string>(cell).value_or(""); }
bool Bool(const Cell& cell) { return std::holds_alternative<bool>(cell) && std::get<bool>(cell); }

std::string Resolve(const Row& row, size_t path, size_t relative, const std::string& base,
                    const std::string& separator) {
  const auto stored = catalog::CellAs<std::string>(row[path]);
  if (!stored) return base;
  return LoadedDuckLakePath(*stored, Bool(row[relative]), base, separator);
}

// The live tags of every object (ducklake_tag, keyed by object id) or of
// every column (ducklake_column_tag, keyed by table and column id), in scan
// order; a tag whose value is NULL is skipped, as DuckLake skips it.
std::map<std::pair<int64_t, int64_t>, std::vector<LakeTag>> Tags(
    RowTransaction& rows, std::string_view table, bool per_column, int64_t snapshot, bool at_head,
    std::optional<int64_t> only = std::nullopt) {
  std::map<std::pair<int64_t, int64_t>, std::vector<LakeTag>> tags;
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

bool AddChild(std::vector<LakeColumn>& columns, int64_t parent, LakeColumn& column) {
  for (auto& candidate : columns) {
    if (candidate.id == parent) {
      candidate.children.push_back(std::move(column));
      return true;
    }
    if (AddChild(candidate.children, parent, column)) return true;
  }
  return false;
}

using TagMap = std::map<std::pair<int64_t, int64_t>, std::vector<LakeTag>>;

// Drops from a table's inlined data tables each one that holds no row and is
// not the newest. DuckLake declares one per schema version and drops the
// empty ones only after a flush, so a table renamed 30,000 times has 30,000,
// each of which DuckLake's catalog would copy at every new schema version and
// every scan would read. One without rows has none at any snapshot (only a
// flush removes rows, and they move to a data file), and DuckLake inserts
// into the newest; a commit that gives a left-out one rows makes the cached
// catalog read its table again (head_catalog_cache.cpp). The registrations
// themselves stay, ducklake_inlined_data_tables as DuckLake wrote it.
void LeaveOutEmptySuperseded(RowTransaction& rows, int64_t table_id,
                             std::vector<LakeInlinedTable>& tables) {
  if (tables.size() < 2) return;
  const std::vector<int64_t> with_rows = rows.InlinedVersionsWithRows(table_id);  // descending
  const int64_t newest =
      std::max_element(tables.begin(), tables.end(), [](const auto& a, const auto& b) {
        return a.schema_version < b.schema_version;
      })->schema_version;
  std::erase_if(tables, [&](const LakeInlinedTable& table) {
    return table.schema_version != newest &&
           !std::binary_search(with_rows.begin(), with_rows.end(), table.schema_version,
                               std::greater<>());
  });
}

// The tables live at `snapshot` with their columns, tags and inlined data
// tables, in id order; `only`: just the table of that id (if live).
std::vector<std::shared_ptr<const LakeTable>> ReadTables(RowTransaction& rows, int64_t snapshot,
                                                         bool at_head, const std::string& separator,
                                                         const std::vector<LakeSchema>& schemas,
                                                         const TagMap& table_tags,
                                                         std::optional<int64_t> only) {
  std::map<int64_t, size_t> schema_at;
  for (size_t i = 0; i < schemas.size(); ++i) schema_at[schemas[i].id] = i;
  const auto column_tags = Tags(rows, "ducklake_column_tag", true, snapshot, at_head, only);

  std::map<int64_t, std::vector<LakeInlinedTable>> inlined;
  TableRows(rows, "ducklake_inlined_data_tables", {"table_id", "table_name", "schema_version"})
      .ForEachLive(
          snapshot, false,
          [&](const std::vector<size_t>& at, const Row& row) {
            inlined[Int(row[at[0]])].push_back({Text(row[at[1]]), Int(row[at[2]])});
          },
          only);
  for (auto& [table_id, tables] : inlined) LeaveOutEmptySuperseded(rows, table_id, tables);

  struct ColumnRow {
    std::optional<int64_t> parent;
    int64_t order = 0;
    LakeColumn column;
  };
  std::map<int64_t, std::vector<ColumnRow>> columns;  // by table
  TableRows column_rows(
      rows, "ducklake_column",
      {"table_id", "column_id", "column_name", "column_type", "initial_default", "default_value",
       "nulls_allowed", "parent_column", "column_order", "default_value_type"});
  column_rows.ForEachLive(
      snapshot, at_head,
      [&](const std::vector<size_t>& at, const Row& row) {
        ColumnRow entry;
        entry.column.id = Int(row[at[1]]);
        entry.column.name = Text(row[at[2]]);
        entry.column.type = Text(row[at[3]]);
        entry.column.initial_default = catalog::CellAs<std::string>(row[at[4]]);
        entry.column.default_value = catalog::CellAs<std::string>(row[at[5]]);
        if (entry.column.default_value == "NULL") entry.column.default_value.reset();
        entry.column.nulls_allowed = Bool(row[at[6]]);
        entry.parent = catalog::CellAs<int64_t>(row[at[7]]);
        entry.order = Int(row[at[8]]);
        entry.column.default_value_type = Text(row[at[9]]);
        const int64_t table_id = Int(row[at[0]]);
        if (auto tags = column_tags.find({table_id, entry.column.id}); tags != column_tags.end()) {
          entry.column.tags = tags->second;
        }
        columns[table_id].push_back(std::move(entry));
      },
      only);

  std::vector<LakeTable> tables;
  std::map<int64_t, Row> table_rows;
  TableRows(rows, "ducklake_table",
            {"table_id", "schema_id", "table_uuid", "table_name", "path", "path_is_relative"})
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            LakeTable table;
            table.id = Int(row[at[0]]);
            table.schema_id = Int(row[at[1]]);
            table.uuid = Text(row[at[2]]);
            table.name = Text(row[at[3]]);
            auto schema = schema_at.find(table.schema_id);
            if (schema == schema_at.end()) {
              throw store::InvalidArgumentError(
                  "Failed to load DuckLake - table with id " + std::to_string(table.id) +
                  " references schema id " + std::to_string(table.schema_id) +
                  " that does not exist");
            }
            table.path = Resolve(row, at[4], at[5], schemas[schema->second].path, separator);
            table.stored_path = catalog::CellAs<std::string>(row[at[4]]);
            table.path_is_relative = Bool(row[at[5]]);
            if (auto tags = table_tags.find({table.id, 0}); tags != table_tags.end()) {
              table.tags = tags->second;
            }
            if (auto found = inlined.find(table.id); found != inlined.end()) {
              table.inlined_data_tables = std::move(found->second);
            }
            tables.push_back(std::move(table));
          },
          only);
  // Rows come in the order they were written: id order until a table is
  // altered after a later one was created. Sorted only then.
  const auto by_id = [](const LakeTable& a, const LakeTable& b) { return a.id < b.id; };
  if (!std::is_sorted(tables.begin(), tables.end(), by_id)) {
    std::sort(tables.begin(), tables.end(), by_id);
  }

  std::vector<std::shared_ptr<const LakeTable>> loaded;
  loaded.reserve(tables.size());
  for (auto& table : tables) {
    auto found = columns.find(table.id);
    if (found == columns.end()) {
      // A table none of whose column versions is live drops out of DuckLake's
      // join; one with no column rows at all is refused. Rare: looked up by
      // key only then.
      bool has_column_rows = false;
      column_rows.ForEachWithKey(
          table.id, [&](const std::vector<size_t>&, const Row&) { has_column_rows = true; });
      if (has_column_rows) continue;
      throw store::InvalidArgumentError("Failed to load DuckLake - Table entry \"" + table.name +
                                        "\" does not have any columns");
    }
    auto& entries = found->second;
    // ORDER BY parent_column NULLS FIRST, column_order
    std::stable_sort(entries.begin(), entries.end(), [](const ColumnRow& a, const ColumnRow& b) {
      if (a.parent.has_value() != b.parent.has_value()) return !a.parent.has_value();
      if (a.parent && *a.parent != *b.parent) return *a.parent < *b.parent;
      return a.order < b.order;
    });
    for (auto& entry : entries) {
      if (!entry.parent) {
        table.columns.push_back(std::move(entry.column));
        continue;
      }
      const std::string name = entry.column.name;
      if (!AddChild(table.columns, *entry.parent, entry.column)) {
        throw store::InvalidArgumentError(
            "Failed to load DuckLake - Could not find parent column for column " + name);
      }
    }
    loaded.push_back(std::make_shared<const LakeTable>(std::move(table)));
  }
  return loaded;
}

// Partitions and sorts: a key table joined with its fields by id, ordered
// by table, id and key index, grouped by consecutive table.
std::vector<LakeKey> ReadKeys(
    RowTransaction& rows, int64_t snapshot, bool at_head, std::string_view info_table,
    std::string_view field_table, std::string_view id_column,
    const std::vector<std::string_view>& field_columns,
    const std::function<LakeKeyField(const std::vector<size_t>&, const Row&)>& field_of,
    std::optional<int64_t> only) {
  std::map<int64_t, int64_t> live;  // id -> table
  TableRows(rows, info_table, {"table_id", id_column})
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            live[Int(row[at[1]])] = Int(row[at[0]]);
          },
          only);
  struct Joined {
    int64_t table_id, id;
    LakeKeyField field;
  };
  std::vector<Joined> joined;
  std::vector<std::string_view> columns = {"table_id", id_column};
  columns.insert(columns.end(), field_columns.begin(), field_columns.end());
  TableRows(rows, field_table, columns)
      .ForEachLive(
          snapshot, false,
          [&](const std::vector<size_t>& at, const Row& row) {
            auto info = live.find(Int(row[at[1]]));
            if (info == live.end()) return;
            joined.push_back({info->second, info->first, field_of(at, row)});
          },
          only);
  std::stable_sort(joined.begin(), joined.end(), [](const Joined& a, const Joined& b) {
    if (a.table_id != b.table_id) return a.table_id < b.table_id;
    if (a.id != b.id) return a.id < b.id;
    return a.field.key_index < b.field.key_index;
  });
  std::vector<LakeKey> keys;
  for (auto& entry : joined) {
    if (keys.empty() || keys.back().table_id != entry.table_id) {
      keys.push_back({entry.id, entry.table_id, {}});
    }
    keys.back().fields.push_back(std::move(entry.field));
  }
  return keys;
}

bool CaseInsensitiveEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::vector<LakeKey> ReadPartitions(RowTransaction& rows, int64_t snapshot, bool at_head,
                                    std::optional<int64_t> only) {
  return ReadKeys(
      rows, snapshot, at_head, "ducklake_partition_info", "ducklake_partition_column",
      "partition_id", {"partition_key_index", "column_id", "transform"},
      [](const std::vector<size_t>& at, const Row& row) {
        LakeKeyField field;
        field.key_index = Int(row[at[2]]);
        field.column_id = Int(row[at[3]]);
        field.transform = Text(row[at[4]]);
        return field;
      },
      only);
}

std::vector<LakeKey> ReadSorts(RowTransaction& rows, int64_t snapshot, bool at_head,
                               std::optional<int64_t> only) {
  return ReadKeys(
      rows, snapshot, at_head, "ducklake_sort_info", "ducklake_sort_expression", "sort_id",
      {"sort_key_index", "expression", "dialect", "sort_direction", "null_order"},
      [](const std::vector<size_t>& at, const Row& row) {
        LakeKeyField field;
        field.key_index = Int(row[at[2]]);
        field.expression = Text(row[at[3]]);
        field.dialect = Text(row[at[4]]);
        field.descending = CaseInsensitiveEquals(Text(row[at[5]]), "DESC");
        field.nulls_first = CaseInsensitiveEquals(Text(row[at[6]]), "NULLS_FIRST");
        return field;
      },
      only);
}

std::vector<LakeSchema> ReadSchemas(RowTransaction& rows, int64_t snapshot, bool at_head,
                                    const std::string& data_path, const std::string& separator) {
  std::vector<LakeSchema> schemas;
  TableRows(rows, "ducklake_schema",
            {"schema_id", "schema_uuid", "schema_name", "path", "path_is_relative"})
      .ForEachLive(snapshot, at_head, [&](const std::vector<size_t>& at, const Row& row) {
        schemas.push_back({Int(row[at[0]]), Text(row[at[1]]), Text(row[at[2]]),
                           Resolve(row, at[3], at[4], data_path, separator),
                           catalog::CellAs<std::string>(row[at[3]]), Bool(row[at[4]])});
      });
  return schemas;
}

// The views, whether one has no alias list, and whether a macro is live.
void ReadViewsAndMacros(RowTransaction& rows, int64_t snapshot, bool at_head,
                        const TagMap& object_tags, LakeCatalog& catalog) {
  catalog.views.clear();
  catalog.views_need_sql = false;
  TableRows(rows, "ducklake_view",
            {"view_id", "view_uuid", "schema_id", "view_name", "dialect", "sql", "column_aliases"})
      .ForEachLive(snapshot, at_head, [&](const std::vector<size_t>& at, const Row& row) {
        if (!catalog::CellAs<std::string>(row[at[6]]))
          catalog.views_need_sql = true;  // no alias list to parse
        LakeView view{Int(row[at[0]]),  Int(row[at[2]]),  Text(row[at[1]]), Text(row[at[3]]),
                      Text(row[at[4]]), Text(row[at[6]]), Text(row[at[5]]), {}};
        if (auto tags = object_tags.find({view.id, 0}); tags != object_tags.end()) {
          view.tags = tags->second;
        }
        catalog.views.push_back(std::move(view));
      });
  catalog.has_macros = false;
  TableRows(rows, "ducklake_macro", {"macro_id"})
      .ForEachLive(snapshot, at_head,
                   [&](const std::vector<size_t>&, const Row&) { catalog.has_macros = true; });
}

// Replaces what belongs to table `table_id` in `items` (kept in table id
// order) by `fresh`.
template <class Item, class TableOf>
void ReplaceTableItems(int64_t table_id, std::vector<Item> fresh, std::vector<Item>& items,
                       TableOf table_of) {
  std::erase_if(items, [&](const Item& item) { return table_of(item) == table_id; });
  auto at = std::lower_bound(items.begin(), items.end(), table_id,
                             [&](const Item& item, int64_t id) { return table_of(item) < id; });
  items.insert(at, std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
}

}  // namespace

LakeCatalog ReadLakeCatalog(RowTransaction& rows, int64_t snapshot_id, const std::string& data_path,
                            const std::string& separator) {
  const auto head = rows.LatestSnapshot();
  const bool at_head = head && head->snapshot_id == snapshot_id;
  LakeCatalog catalog;
  catalog.schemas = ReadSchemas(rows, snapshot_id, at_head, data_path, separator);
  const auto object_tags = Tags(rows, "ducklake_tag", false, snapshot_id, at_head);
  catalog.tables =
      ReadTables(rows, snapshot_id, at_head, separator, catalog.schemas, object_tags, std::nullopt);
  ReadViewsAndMacros(rows, snapshot_id, at_head, object_tags, catalog);
  catalog.partitions = ReadPartitions(rows, snapshot_id, at_head, std::nullopt);
  catalog.sorts = ReadSorts(rows, snapshot_id, at_head, std::nullopt);
  return catalog;
}

void RereadLakeTable(RowTransaction& rows, int64_t head_snapshot_id, const std::string& separator,
                     int64_t table_id, LakeCatalog& catalog) {
  const auto object_tags = Tags(rows, "ducklake_tag", false, head_snapshot_id, true, table_id);
  const auto table_of = [](const std::shared_ptr<const LakeTable>& table) { return table->id; };
  const auto key_of = [](const LakeKey& key) { return key.table_id; };
  ReplaceTableItems(
      table_id,
      ReadTables(rows, head_snapshot_id, true, separator, catalog.schemas, object_tags, table_id),
      catalog.tables, table_of);
  ReplaceTableItems(table_id, ReadPartitions(rows, head_snapshot_id, true, table_id),
                    catalog.partitions, key_of);
  ReplaceTableItems(table_id, ReadSorts(rows, head_snapshot_id, true, table_id), catalog.sorts,
                    key_of);
}

void RereadLakeViews(RowTransaction& rows, int64_t head_snapshot_id, LakeCatalog& catalog) {
  const auto object_tags = Tags(rows, "ducklake_tag", false, head_snapshot_id, true);
  ReadViewsAndMacros(rows, head_snapshot_id, true, object_tags, catalog);
}

}  // namespace moraine::commit
