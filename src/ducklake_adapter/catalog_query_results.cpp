#include "ducklake_adapter/catalog_query_results.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "ducklake_adapter/ducklake_catalog_abi.h"
#include "ducklake_adapter/result_rows.h"

namespace moraine::ducklake_adapter {
namespace {

namespace abi = ducklake_abi;
using duckdb::LogicalType;
using duckdb::Value;

using QueryExecutor =
    std::function<duckdb::unique_ptr<duckdb::QueryResult>(abi::DuckLakeSnapshot, std::string)>;
using BuildCatalogFunction = abi::DuckLakeCatalogInfo (*)(abi::DuckLakeSnapshot,
                                                          const QueryExecutor&, const std::string&,
                                                          const std::string&);

Value Text(const std::optional<std::string>& text) {
  return text ? Value(*text) : Value(LogicalType::VARCHAR);
}
Value Text(const std::string& text) { return Value(text); }
// DuckLake reads an empty default_value_type as absent.
Value TextOrNull(const std::string& text) {
  return text.empty() ? Value(LogicalType::VARCHAR) : Value(text);
}
Value Id(int64_t id) { return Value::BIGINT(id); }

LogicalType TagListType() {
  return LogicalType::LIST(
      LogicalType::STRUCT({{"key", LogicalType::VARCHAR}, {"value", LogicalType::VARCHAR}}));
}

// LIST({'key': key, 'value': value}) over no rows is NULL.
Value Tags(const std::vector<commit::LakeTag>& tags) {
  if (tags.empty()) return Value(TagListType());
  duckdb::vector<Value> values;
  for (const auto& tag : tags) {
    values.push_back(Value::STRUCT({{"key", Value(tag.key)}, {"value", Value(tag.value)}}));
  }
  return Value::LIST(duckdb::ListType::GetChildType(TagListType()), std::move(values));
}

LogicalType InlinedListType() {
  return LogicalType::LIST(LogicalType::STRUCT(
      {{"name", LogicalType::VARCHAR}, {"schema_version", LogicalType::BIGINT}}));
}

Value InlinedTables(const std::vector<commit::LakeInlinedTable>& tables) {
  if (tables.empty()) return Value(InlinedListType());
  duckdb::vector<Value> values;
  for (const auto& table : tables) {
    values.push_back(Value::STRUCT(
        {{"name", Value(table.name)}, {"schema_version", Value::BIGINT(table.schema_version)}}));
  }
  return Value::LIST(duckdb::ListType::GetChildType(InlinedListType()), std::move(values));
}

duckdb::unique_ptr<duckdb::QueryResult> Schemas(const commit::LakeCatalog& catalog,
                                                const duckdb::ClientProperties& properties) {
  ResultRows rows({"schema_id", "schema_uuid", "schema_name", "path", "path_is_relative"},
                  {LogicalType::BIGINT, LogicalType::VARCHAR, LogicalType::VARCHAR,
                   LogicalType::VARCHAR, LogicalType::BOOLEAN});
  for (const auto& schema : catalog.schemas) {
    rows.NewRow();
    rows.Set(0, Id(schema.id));
    rows.Set(1, Text(schema.uuid));
    rows.Set(2, Text(schema.name));
    rows.Set(3, Text(schema.stored_path));
    rows.Set(4, Value::BOOLEAN(schema.path_is_relative));
  }
  return rows.Finish(properties);
}

// A column and its parent, in the order DuckLake's query gives them:
// ORDER BY parent_column NULLS FIRST, column_order.
struct PlacedColumn {
  const commit::LakeColumn* column;
  std::optional<int64_t> parent;
};

std::vector<PlacedColumn> InQueryOrder(const std::vector<commit::LakeColumn>& top) {
  std::vector<PlacedColumn> placed;
  for (const auto& column : top) placed.push_back({&column, std::nullopt});
  std::vector<PlacedColumn> nested;
  std::function<void(const commit::LakeColumn&)> collect = [&](const commit::LakeColumn& parent) {
    for (const auto& child : parent.children) {
      nested.push_back({&child, parent.id});
      collect(child);
    }
  };
  for (const auto& column : top) collect(column);
  // Siblings keep their order; parents go in id order.
  std::stable_sort(nested.begin(), nested.end(), [](const PlacedColumn& a, const PlacedColumn& b) {
    return *a.parent < *b.parent;
  });
  placed.insert(placed.end(), nested.begin(), nested.end());
  return placed;
}

duckdb::unique_ptr<duckdb::QueryResult> Tables(const commit::LakeCatalog& catalog,
                                               const duckdb::ClientProperties& properties) {
  enum : duckdb::idx_t {
    kSchemaId,
    kTableId,
    kUuid,
    kName,
    kTags,
    kInlined,
    kPath,
    kRelative,
    kColumnId,
    kColumnName,
    kColumnType,
    kInitialDefault,
    kDefaultValue,
    kNullsAllowed,
    kParent,
    kColumnTags,
    kDefaultValueType
  };
  ResultRows rows(
      {"schema_id", "table_id", "table_uuid", "table_name", "tag", "inlined_data_tables", "path",
       "path_is_relative", "column_id", "column_name", "column_type", "initial_default",
       "default_value", "nulls_allowed", "parent_column", "column_tags", "default_value_type"},
      {LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::VARCHAR, LogicalType::VARCHAR,
       TagListType(), InlinedListType(), LogicalType::VARCHAR, LogicalType::BOOLEAN,
       LogicalType::BIGINT, LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::VARCHAR,
       LogicalType::VARCHAR, LogicalType::BOOLEAN, LogicalType::BIGINT, TagListType(),
       LogicalType::VARCHAR});
  for (const auto& shared : catalog.tables) {
    const commit::LakeTable& table = *shared;
    const Value tags = Tags(table.tags);
    const Value inlined = InlinedTables(table.inlined_data_tables);
    for (const auto& [column, parent] : InQueryOrder(table.columns)) {
      rows.NewRow();
      rows.Set(kSchemaId, Id(table.schema_id));
      rows.Set(kTableId, Id(table.id));
      rows.Set(kUuid, Text(table.uuid));
      rows.Set(kName, Text(table.name));
      rows.Set(kTags, tags);
      rows.Set(kInlined, inlined);
      rows.Set(kPath, Text(table.stored_path));
      rows.Set(kRelative, Value::BOOLEAN(table.path_is_relative));
      rows.Set(kColumnId, Id(column->id));
      rows.Set(kColumnName, Text(column->name));
      rows.Set(kColumnType, Text(column->type));
      rows.Set(kInitialDefault, Text(column->initial_default));
      rows.Set(kDefaultValue, Text(column->default_value));
      rows.Set(kNullsAllowed, Value::BOOLEAN(column->nulls_allowed));
      if (parent) rows.Set(kParent, Id(*parent));
      rows.Set(kColumnTags, Tags(column->tags));
      rows.Set(kDefaultValueType, TextOrNull(column->default_value_type));
    }
  }
  return rows.Finish(properties);
}

duckdb::unique_ptr<duckdb::QueryResult> Views(const commit::LakeCatalog& catalog,
                                              const duckdb::ClientProperties& properties) {
  ResultRows rows(
      {"view_id", "view_uuid", "schema_id", "view_name", "dialect", "sql", "column_aliases", "tag"},
      {LogicalType::BIGINT, LogicalType::VARCHAR, LogicalType::BIGINT, LogicalType::VARCHAR,
       LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::VARCHAR, TagListType()});
  for (const auto& view : catalog.views) {
    rows.NewRow();
    rows.Set(0, Id(view.id));
    rows.Set(1, Text(view.uuid));
    rows.Set(2, Id(view.schema_id));
    rows.Set(3, Text(view.name));
    rows.Set(4, Text(view.dialect));
    rows.Set(5, Text(view.sql));
    rows.Set(6, Text(view.column_aliases));
    rows.Set(7, Tags(view.tags));
  }
  return rows.Finish(properties);
}

// One row per key field of `keys` (partitions or sorts): the key's id, its
// table, the field's index, then what `set_fields` writes from column 3 on.
template <class SetFields>
duckdb::unique_ptr<duckdb::QueryResult> KeyRows(const std::vector<commit::LakeKey>& keys,
                                                duckdb::vector<std::string> names,
                                                duckdb::vector<LogicalType> types,
                                                const SetFields& set_fields,
                                                const duckdb::ClientProperties& properties) {
  ResultRows rows(std::move(names), std::move(types));
  for (const auto& key : keys) {
    for (const auto& field : key.fields) {
      rows.NewRow();
      rows.Set(0, Id(key.id));
      rows.Set(1, Id(key.table_id));
      rows.Set(2, Id(field.key_index));
      set_fields(rows, field);
    }
  }
  return rows.Finish(properties);
}

duckdb::unique_ptr<duckdb::QueryResult> Partitions(const commit::LakeCatalog& catalog,
                                                   const duckdb::ClientProperties& properties) {
  return KeyRows(
      catalog.partitions,
      {"partition_id", "table_id", "partition_key_index", "column_id", "transform"},
      {LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::BIGINT,
       LogicalType::VARCHAR},
      [](ResultRows& rows, const commit::LakeKeyField& field) {
        rows.Set(3, Id(field.column_id));
        rows.Set(4, Text(field.transform));
      },
      properties);
}

duckdb::unique_ptr<duckdb::QueryResult> Sorts(const commit::LakeCatalog& catalog,
                                              const duckdb::ClientProperties& properties) {
  return KeyRows(
      catalog.sorts,
      {"sort_id", "table_id", "sort_key_index", "expression", "dialect", "sort_direction",
       "null_order"},
      {LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::VARCHAR,
       LogicalType::VARCHAR, LogicalType::VARCHAR, LogicalType::VARCHAR},
      [](ResultRows& rows, const commit::LakeKeyField& field) {
        rows.Set(3, Text(field.expression));
        rows.Set(4, Text(field.dialect));
        rows.Set(5, Value(field.descending ? "DESC" : "ASC"));
        rows.Set(6, Value(field.nulls_first ? "NULLS_FIRST" : "NULLS_LAST"));
      },
      properties);
}

// A catalog without macros (CatalogQueryResult's precondition) has no rows here.
duckdb::unique_ptr<duckdb::QueryResult> NoMacros(const duckdb::ClientProperties& properties) {
  ResultRows rows(
      {"schema_id", "macro_id", "macro_name", "impl"},
      {LogicalType::BIGINT, LogicalType::BIGINT, LogicalType::VARCHAR, LogicalType::VARCHAR});
  return rows.Finish(properties);
}

}  // namespace

std::optional<CatalogQueryTexts> RecordCatalogQueryTexts(void* build_catalog, std::string* why) {
  std::vector<std::string> sent;
  const QueryExecutor recorder = [&](abi::DuckLakeSnapshot, std::string query) {
    sent.push_back(std::move(query));
    ResultRows none({"none"}, {LogicalType::BIGINT});
    return none.Finish(duckdb::ClientProperties());
  };
  try {
    reinterpret_cast<BuildCatalogFunction>(build_catalog)(abi::DuckLakeSnapshot{0, 0, 0, 0},
                                                          recorder, "", "/");
  } catch (const std::exception& error) {
    *why =
        std::string("DuckLake's BuildCatalogForSnapshot failed on empty results: ") + error.what();
    return std::nullopt;
  }
  if (sent.size() != kCatalogQueryCount) {
    *why = "DuckLake's BuildCatalogForSnapshot sent " + std::to_string(sent.size()) +
           " queries, not " + std::to_string(kCatalogQueryCount);
    return std::nullopt;
  }
  CatalogQueryTexts texts;
  std::move(sent.begin(), sent.end(), texts.begin());
  return texts;
}

std::optional<CatalogQuery> FindCatalogQuery(const CatalogQueryTexts& texts,
                                             const std::string& query) {
  for (size_t i = 0; i < texts.size(); i++) {
    if (texts[i] == query) return static_cast<CatalogQuery>(i);
  }
  return std::nullopt;
}

duckdb::unique_ptr<duckdb::QueryResult> CatalogQueryResult(duckdb::ClientContext& context,
                                                           CatalogQuery query,
                                                           const commit::LakeCatalog& catalog) {
  const auto& properties = context.GetClientProperties();
  switch (query) {
    case CatalogQuery::kSchemas:
      return Schemas(catalog, properties);
    case CatalogQuery::kTables:
      return Tables(catalog, properties);
    case CatalogQuery::kViews:
      return Views(catalog, properties);
    case CatalogQuery::kMacros:
      return NoMacros(properties);
    case CatalogQuery::kPartitions:
      return Partitions(catalog, properties);
    case CatalogQuery::kSorts:
      return Sorts(catalog, properties);
  }
  return NoMacros(properties);
}

}  // namespace moraine::ducklake_adapter
