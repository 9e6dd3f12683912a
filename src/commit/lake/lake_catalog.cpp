#include "commit/lake/lake_catalog.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>

#include "commit/lake/ducklake_path.h"
#include "commit/rows/head_table_image.h"
#include "commit/rows/lake_table_rows.h"
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

// The tables DuckLake's load keeps of the loads `produce` hands to its
// argument in id order, their paths resolved against their schemas'; throws
// DuckLake's refusals (a missing schema first, then the tables' own, in id
// order).
std::vector<LakeTable> ResolveTables(
    const std::function<void(const std::function<void(LakeTableLoad)>&)>& produce,
    const std::vector<LakeSchema>& schemas, const std::string& separator) {
  std::map<int64_t, const LakeSchema*> schema_of;
  for (const auto& schema : schemas) schema_of[schema.id] = &schema;
  std::vector<LakeTable> tables;
  std::optional<std::string> refusal;
  produce([&](LakeTableLoad load) {
    const auto schema = schema_of.find(load.table.schema_id);
    if (schema == schema_of.end()) {
      throw store::InvalidArgumentError(
          "Failed to load DuckLake - table with id " + std::to_string(load.table.id) +
          " references schema id " + std::to_string(load.table.schema_id) + " that does not exist");
    }
    if (load.refusal && !refusal) refusal = std::move(load.refusal);
    if (refusal || load.without_live_columns) return;
    LakeTable& table = tables.emplace_back(std::move(load.table));
    const std::string& base = schema->second->path;
    table.path = table.stored_path ? LoadedDuckLakePath(*table.stored_path, table.path_is_relative,
                                                        base, separator)
                                   : base;
  });
  if (refusal) throw store::InvalidArgumentError(*refusal);
  return tables;
}

// The tables live at `snapshot`, from the head table images where `rows`
// serves them, else from their rows.
std::vector<LakeTable> ReadTables(RowTransaction& rows, int64_t snapshot, bool at_head,
                                  const std::string& separator,
                                  const std::vector<LakeSchema>& schemas, const LakeTagMap& tags,
                                  std::optional<int64_t> only) {
  return ResolveTables(
      [&](const std::function<void(LakeTableLoad)>& take) {
        if (at_head && rows.VisitHeadTableImages(only, [&](std::string_view image) {
              take(DecodeHeadTableImage(image));
            })) {
          return;
        }
        for (auto& load : ReadLakeTableLoads(rows, snapshot, at_head, tags, only)) {
          take(std::move(load));
        }
      },
      schemas, separator);
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
                        const LakeTagMap& object_tags, LakeCatalog& catalog) {
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
  const auto object_tags = ReadLakeTags(rows, "ducklake_tag", false, snapshot_id, at_head);
  catalog.tables =
      ReadTables(rows, snapshot_id, at_head, separator, catalog.schemas, object_tags, std::nullopt);
  ReadViewsAndMacros(rows, snapshot_id, at_head, object_tags, catalog);
  catalog.partitions = ReadPartitions(rows, snapshot_id, at_head, std::nullopt);
  catalog.sorts = ReadSorts(rows, snapshot_id, at_head, std::nullopt);
  return catalog;
}

void RereadLakeTable(RowTransaction& rows, int64_t head_snapshot_id, const std::string& separator,
                     int64_t table_id, LakeCatalog& catalog) {
  const auto object_tags =
      ReadLakeTags(rows, "ducklake_tag", false, head_snapshot_id, true, table_id);
  const auto table_of = [](const LakeTable& table) { return table.id; };
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
  const auto object_tags = ReadLakeTags(rows, "ducklake_tag", false, head_snapshot_id, true);
  ReadViewsAndMacros(rows, head_snapshot_id, true, object_tags, catalog);
}

}  // namespace moraine::commit
