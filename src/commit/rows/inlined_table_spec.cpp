#include "commit/rows/inlined_table_spec.h"

#include <array>
#include <cctype>
#include <string_view>
#include <utility>

#include "catalog/ducklake_tables.h"

namespace moraine::commit {
namespace {

using catalog::ColumnRecord;
using catalog::TableState;

// DuckLake's base type names (src/common/ducklake_types.cpp at the pin) and
// the names DuckDB gives those types.
constexpr std::array<std::pair<std::string_view, std::string_view>, 31> kBaseTypes = {{
    {"boolean", "BOOLEAN"},
    {"int8", "TINYINT"},
    {"int16", "SMALLINT"},
    {"int32", "INTEGER"},
    {"int64", "BIGINT"},
    {"int128", "HUGEINT"},
    {"uint8", "UTINYINT"},
    {"uint16", "USMALLINT"},
    {"uint32", "UINTEGER"},
    {"uint64", "UBIGINT"},
    {"uint128", "UHUGEINT"},
    {"float32", "FLOAT"},
    {"float64", "DOUBLE"},
    {"time", "TIME"},
    {"time_ns", "TIME_NS"},
    {"date", "DATE"},
    {"timestamp", "TIMESTAMP"},
    {"timestamp_us", "TIMESTAMP"},
    {"timestamp_ms", "TIMESTAMP_MS"},
    {"timestamp_ns", "TIMESTAMP_NS"},
    {"timestamp_s", "TIMESTAMP_S"},
    {"timestamptz", "TIMESTAMP WITH TIME ZONE"},
    {"timetz", "TIME WITH TIME ZONE"},
    {"interval", "INTERVAL"},
    {"varchar", "VARCHAR"},
    {"blob", "BLOB"},
    {"uuid", "UUID"},
    {"json", "JSON"},
    {"variant", "VARIANT"},
    {"unknown", "UNKNOWN"},
    {"bit", "BIT"},
}};

// A name as DuckDB writes it inside a type: bare when it is a plain
// lower-case identifier, else double-quoted.
std::string Identifier(const std::string& name) {
  bool plain =
      !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    plain = plain && (std::islower(u) || std::isdigit(u) || c == '_');
  }
  if (plain) return name;
  std::string quoted = "\"";
  for (char c : name) {
    quoted.push_back(c);
    if (c == '"') quoted.push_back('"');
  }
  return quoted + "\"";
}

std::optional<std::string> DuckDBType(const TableState& table, const ColumnRecord& column) {
  const std::string& type = column.column_type();
  const auto children = table.Children(column.column_id());
  if (type == "struct") {
    std::string fields;
    for (const ColumnRecord* child : children) {
      auto child_type = DuckDBType(table, *child);
      if (!child_type) return std::nullopt;
      fields += (fields.empty() ? "" : ", ") + Identifier(child->column_name()) + " " + *child_type;
    }
    return "STRUCT(" + fields + ")";
  }
  if (type == "list") {
    if (children.size() != 1) return std::nullopt;
    auto element = DuckDBType(table, *children[0]);
    return element ? std::optional<std::string>(*element + "[]") : std::nullopt;
  }
  if (type == "map") {
    if (children.size() != 2) return std::nullopt;
    auto key = DuckDBType(table, *children[0]);
    auto value = DuckDBType(table, *children[1]);
    if (!key || !value) return std::nullopt;
    return "MAP(" + *key + ", " + *value + ")";
  }
  if (type.starts_with("decimal(")) {
    std::string upper = "DECIMAL" + type.substr(7);
    return upper;
  }
  for (const auto& [name, duckdb] : kBaseTypes) {
    if (type == name) return std::string(duckdb);
  }
  return std::nullopt;  // geometry (never inlined) or a type DuckLake cannot parse
}

// DuckLakeUtil::IsInlinedSystemColumn: a table with such a column is not inlined.
bool IsInlinedSystemColumn(const std::string& name) {
  std::string lower;
  for (char c : name)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "row_id" || lower == "begin_snapshot" || lower == "end_snapshot" ||
         lower == "_ducklake_internal_snapshot_id" || lower == "_ducklake_internal_row_id";
}

}  // namespace

std::optional<inlined::KeyedColumn> InlinedDataColumn(const TableState& table,
                                                      const ColumnRecord& column) {
  if (IsInlinedSystemColumn(column.column_name())) return std::nullopt;
  auto type = DuckDBType(table, column);
  if (!type) return std::nullopt;
  return inlined::KeyedColumn{
      {column.column_order(), column.column_id()}, column.column_name(), std::move(*type)};
}

std::optional<std::vector<inlined::KeyedColumn>> InlinedDataColumns(const TableState& table) {
  std::vector<inlined::KeyedColumn> columns;
  for (const ColumnRecord* column : table.Children(catalog::kTopLevel)) {
    auto keyed = InlinedDataColumn(table, *column);
    if (!keyed) return std::nullopt;
    columns.push_back(std::move(*keyed));
  }
  return columns;
}

std::optional<TableSpec> InlinedDataTableSpec(const TableState& table, int64_t schema_version) {
  auto columns = InlinedDataColumns(table);
  if (!columns) return std::nullopt;
  TableSpec spec;
  spec.name = catalog::InlinedDataTableName(table.id(), schema_version);
  for (const catalog::TableColumn& column : catalog::InlinedDataLeadingColumns()) {
    spec.columns.push_back(
        {std::string(column.name), std::string(catalog::CellTypeName(column.type)), true});
  }
  for (auto& column : *columns) {
    spec.columns.push_back({std::move(column.name), std::move(column.type), true});
  }
  return spec;
}

}  // namespace moraine::commit
