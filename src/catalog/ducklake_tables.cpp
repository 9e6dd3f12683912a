#include "catalog/ducklake_tables.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "store/error.h"

namespace moraine::catalog {
namespace {

constexpr CellType kBigint = CellType::kBigint;
constexpr CellType kVarchar = CellType::kVarchar;
constexpr CellType kBoolean = CellType::kBoolean;
constexpr CellType kUuid = CellType::kUuid;
constexpr CellType kTimestampTz = CellType::kTimestampTz;

struct ColumnSpec {
  std::string_view name;
  CellType type;
};

// One table as DuckLake's CREATE TABLE declares it. A column is nullable
// unless it is declared NOT NULL or belongs to the primary key.
CatalogTable Table(std::string_view name, std::initializer_list<ColumnSpec> columns,
                   std::initializer_list<std::string_view> primary_key = {},
                   std::initializer_list<std::string_view> not_null = {}) {
  CatalogTable table{name, {}, primary_key};
  for (const ColumnSpec& column : columns) {
    auto in = [&](std::initializer_list<std::string_view> names) {
      return std::find(names.begin(), names.end(), column.name) != names.end();
    };
    table.columns.push_back({column.name, column.type, !in(primary_key) && !in(not_null)});
  }
  return table;
}

// Transcribed from DuckLakeMetadataManager::InitializeDuckLake at d8a1881e,
// in its order. Keep this list verbatim; the e2e differential test checks it
// against the tables a stock DuckLake creates.
std::vector<CatalogTable> BuildCatalogTablesV1_0() {
  std::vector<CatalogTable> tables;
  tables.push_back(
      Table("ducklake_metadata",
            {{"key", kVarchar}, {"value", kVarchar}, {"scope", kVarchar}, {"scope_id", kBigint}},
            {}, {"key", "value"}));
  tables.push_back(Table("ducklake_snapshot",
                         {{"snapshot_id", kBigint},
                          {"snapshot_time", kTimestampTz},
                          {"schema_version", kBigint},
                          {"next_catalog_id", kBigint},
                          {"next_file_id", kBigint}},
                         {"snapshot_id"}));
  tables.push_back(Table("ducklake_snapshot_changes",
                         {{"snapshot_id", kBigint},
                          {"changes_made", kVarchar},
                          {"author", kVarchar},
                          {"commit_message", kVarchar},
                          {"commit_extra_info", kVarchar}},
                         {"snapshot_id"}));
  tables.push_back(Table("ducklake_schema",
                         {{"schema_id", kBigint},
                          {"schema_uuid", kUuid},
                          {"begin_snapshot", kBigint},
                          {"end_snapshot", kBigint},
                          {"schema_name", kVarchar},
                          {"path", kVarchar},
                          {"path_is_relative", kBoolean}},
                         {"schema_id"}));
  tables.push_back(Table("ducklake_table", {{"table_id", kBigint},
                                            {"table_uuid", kUuid},
                                            {"begin_snapshot", kBigint},
                                            {"end_snapshot", kBigint},
                                            {"schema_id", kBigint},
                                            {"table_name", kVarchar},
                                            {"path", kVarchar},
                                            {"path_is_relative", kBoolean}}));
  tables.push_back(Table("ducklake_view", {{"view_id", kBigint},
                                           {"view_uuid", kUuid},
                                           {"begin_snapshot", kBigint},
                                           {"end_snapshot", kBigint},
                                           {"schema_id", kBigint},
                                           {"view_name", kVarchar},
                                           {"dialect", kVarchar},
                                           {"sql", kVarchar},
                                           {"column_aliases", kVarchar}}));
  tables.push_back(Table("ducklake_tag", {{"object_id", kBigint},
                                          {"begin_snapshot", kBigint},
                                          {"end_snapshot", kBigint},
                                          {"key", kVarchar},
                                          {"value", kVarchar}}));
  tables.push_back(Table("ducklake_column_tag", {{"table_id", kBigint},
                                                 {"column_id", kBigint},
                                                 {"begin_snapshot", kBigint},
                                                 {"end_snapshot", kBigint},
                                                 {"key", kVarchar},
                                                 {"value", kVarchar}}));
  tables.push_back(Table("ducklake_data_file",
                         {{"data_file_id", kBigint},
                          {"table_id", kBigint},
                          {"begin_snapshot", kBigint},
                          {"end_snapshot", kBigint},
                          {"file_order", kBigint},
                          {"path", kVarchar},
                          {"path_is_relative", kBoolean},
                          {"file_format", kVarchar},
                          {"record_count", kBigint},
                          {"file_size_bytes", kBigint},
                          {"footer_size", kBigint},
                          {"row_id_start", kBigint},
                          {"partition_id", kBigint},
                          {"encryption_key", kVarchar},
                          {"mapping_id", kBigint},
                          {"partial_max", kBigint}},
                         {"data_file_id"}));
  tables.push_back(Table("ducklake_file_column_stats", {{"data_file_id", kBigint},
                                                        {"table_id", kBigint},
                                                        {"column_id", kBigint},
                                                        {"column_size_bytes", kBigint},
                                                        {"value_count", kBigint},
                                                        {"null_count", kBigint},
                                                        {"min_value", kVarchar},
                                                        {"max_value", kVarchar},
                                                        {"contains_nan", kBoolean},
                                                        {"extra_stats", kVarchar}}));
  tables.push_back(Table("ducklake_file_variant_stats", {{"data_file_id", kBigint},
                                                         {"table_id", kBigint},
                                                         {"column_id", kBigint},
                                                         {"variant_path", kVarchar},
                                                         {"shredded_type", kVarchar},
                                                         {"column_size_bytes", kBigint},
                                                         {"value_count", kBigint},
                                                         {"null_count", kBigint},
                                                         {"min_value", kVarchar},
                                                         {"max_value", kVarchar},
                                                         {"contains_nan", kBoolean},
                                                         {"extra_stats", kVarchar}}));
  tables.push_back(Table("ducklake_delete_file",
                         {{"delete_file_id", kBigint},
                          {"table_id", kBigint},
                          {"begin_snapshot", kBigint},
                          {"end_snapshot", kBigint},
                          {"data_file_id", kBigint},
                          {"path", kVarchar},
                          {"path_is_relative", kBoolean},
                          {"format", kVarchar},
                          {"delete_count", kBigint},
                          {"file_size_bytes", kBigint},
                          {"footer_size", kBigint},
                          {"encryption_key", kVarchar},
                          {"partial_max", kBigint}},
                         {"delete_file_id"}));
  tables.push_back(Table("ducklake_column", {{"column_id", kBigint},
                                             {"begin_snapshot", kBigint},
                                             {"end_snapshot", kBigint},
                                             {"table_id", kBigint},
                                             {"column_order", kBigint},
                                             {"column_name", kVarchar},
                                             {"column_type", kVarchar},
                                             {"initial_default", kVarchar},
                                             {"default_value", kVarchar},
                                             {"nulls_allowed", kBoolean},
                                             {"parent_column", kBigint},
                                             {"default_value_type", kVarchar},
                                             {"default_value_dialect", kVarchar}}));
  tables.push_back(Table("ducklake_table_stats", {{"table_id", kBigint},
                                                  {"record_count", kBigint},
                                                  {"next_row_id", kBigint},
                                                  {"file_size_bytes", kBigint}}));
  tables.push_back(Table("ducklake_table_column_stats", {{"table_id", kBigint},
                                                         {"column_id", kBigint},
                                                         {"contains_null", kBoolean},
                                                         {"contains_nan", kBoolean},
                                                         {"min_value", kVarchar},
                                                         {"max_value", kVarchar},
                                                         {"extra_stats", kVarchar}}));
  tables.push_back(Table("ducklake_partition_info", {{"partition_id", kBigint},
                                                     {"table_id", kBigint},
                                                     {"begin_snapshot", kBigint},
                                                     {"end_snapshot", kBigint}}));
  tables.push_back(Table("ducklake_partition_column", {{"partition_id", kBigint},
                                                       {"table_id", kBigint},
                                                       {"partition_key_index", kBigint},
                                                       {"column_id", kBigint},
                                                       {"transform", kVarchar}}));
  tables.push_back(Table("ducklake_file_partition_value", {{"data_file_id", kBigint},
                                                           {"table_id", kBigint},
                                                           {"partition_key_index", kBigint},
                                                           {"partition_value", kVarchar}}));
  tables.push_back(
      Table("ducklake_files_scheduled_for_deletion", {{"data_file_id", kBigint},
                                                      {"path", kVarchar},
                                                      {"path_is_relative", kBoolean},
                                                      {"schedule_start", kTimestampTz}}));
  tables.push_back(
      Table("ducklake_inlined_data_tables",
            {{"table_id", kBigint}, {"table_name", kVarchar}, {"schema_version", kBigint}}));
  tables.push_back(Table("ducklake_column_mapping",
                         {{"mapping_id", kBigint}, {"table_id", kBigint}, {"type", kVarchar}}));
  tables.push_back(Table("ducklake_name_mapping", {{"mapping_id", kBigint},
                                                   {"column_id", kBigint},
                                                   {"source_name", kVarchar},
                                                   {"target_field_id", kBigint},
                                                   {"parent_column", kBigint},
                                                   {"is_partition", kBoolean}}));
  tables.push_back(
      Table("ducklake_schema_versions",
            {{"begin_snapshot", kBigint}, {"schema_version", kBigint}, {"table_id", kBigint}}));
  tables.push_back(Table("ducklake_macro", {{"schema_id", kBigint},
                                            {"macro_id", kBigint},
                                            {"macro_name", kVarchar},
                                            {"begin_snapshot", kBigint},
                                            {"end_snapshot", kBigint}}));
  tables.push_back(Table("ducklake_macro_impl", {{"macro_id", kBigint},
                                                 {"impl_id", kBigint},
                                                 {"dialect", kVarchar},
                                                 {"sql", kVarchar},
                                                 {"type", kVarchar}}));
  tables.push_back(Table("ducklake_macro_parameters", {{"macro_id", kBigint},
                                                       {"impl_id", kBigint},
                                                       {"column_id", kBigint},
                                                       {"parameter_name", kVarchar},
                                                       {"parameter_type", kVarchar},
                                                       {"default_value", kVarchar},
                                                       {"default_value_type", kVarchar}}));
  tables.push_back(Table("ducklake_sort_info", {{"sort_id", kBigint},
                                                {"table_id", kBigint},
                                                {"begin_snapshot", kBigint},
                                                {"end_snapshot", kBigint}}));
  tables.push_back(Table("ducklake_sort_expression", {{"sort_id", kBigint},
                                                      {"table_id", kBigint},
                                                      {"sort_key_index", kBigint},
                                                      {"expression", kVarchar},
                                                      {"dialect", kVarchar},
                                                      {"sort_direction", kVarchar},
                                                      {"null_order", kVarchar}}));
  return tables;
}

// What catalog version 1.1 adds to 1.0 (RFC 0012). row_group_count and
// ducklake_view_column_tag are as DuckLake's later MigrateV10 creates them
// (upstream, after the pin); the is_exact flags and parent_schema_id are as
// the RFC lists them. DuckLake adds columns with ALTER TABLE ... ADD COLUMN,
// so they come last; all are nullable.
std::vector<CatalogTable> BuildCatalogTablesV1_1() {
  std::vector<CatalogTable> tables = BuildCatalogTablesV1_0();
  auto append = [&](std::string_view table_name, std::initializer_list<ColumnSpec> columns) {
    for (CatalogTable& table : tables) {
      if (table.name != table_name) continue;
      for (const ColumnSpec& column : columns) {
        table.columns.push_back({column.name, column.type, true});
      }
      return;
    }
    throw std::logic_error("no catalog table " + std::string(table_name));
  };
  append("ducklake_schema", {{"parent_schema_id", kBigint}});
  append("ducklake_data_file", {{"row_group_count", kBigint}});
  append("ducklake_delete_file", {{"row_group_count", kBigint}});
  append("ducklake_file_column_stats", {{"min_is_exact", kBoolean}, {"max_is_exact", kBoolean}});
  append("ducklake_table_column_stats", {{"min_is_exact", kBoolean}, {"max_is_exact", kBoolean}});
  tables.push_back(Table("ducklake_view_column_tag", {{"view_id", kBigint},
                                                      {"column_name", kVarchar},
                                                      {"begin_snapshot", kBigint},
                                                      {"end_snapshot", kBigint},
                                                      {"key", kVarchar},
                                                      {"value", kVarchar}}));
  return tables;
}

constexpr std::string_view kInlinedDataPrefix = "ducklake_inlined_data_";
constexpr std::string_view kInlinedDeletePrefix = "ducklake_inlined_delete_";

// A non-negative id exactly as %d prints it: digits only, no sign, no leading
// zero (except "0" itself), within int64_t.
std::optional<int64_t> ParseId(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;  // INT64_MAX has 19 digits
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  if (text.size() > 1 && text.front() == '0') return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void RequireId(int64_t id, const char* what) {
  if (id < 0) {
    throw store::InvalidArgumentError(std::string("inlined table name: negative ") + what + " " +
                                      std::to_string(id));
  }
}

}  // namespace

std::string_view CellTypeName(CellType type) {
  switch (type) {
    case CellType::kBigint:
      return "BIGINT";
    case CellType::kVarchar:
      return "VARCHAR";
    case CellType::kBoolean:
      return "BOOLEAN";
    case CellType::kUuid:
      return "UUID";
    case CellType::kTimestampTz:
      return "TIMESTAMP WITH TIME ZONE";
  }
  return "";
}

const TableColumn* CatalogTable::FindColumn(std::string_view column_name) const {
  for (const TableColumn& column : columns) {
    if (column.name == column_name) return &column;
  }
  return nullptr;
}

const std::vector<CatalogTable>& CatalogTablesV1_0() {
  static const std::vector<CatalogTable> tables = BuildCatalogTablesV1_0();
  return tables;
}

const std::vector<CatalogTable>& CatalogTables(CatalogVersion version) {
  static const std::vector<CatalogTable> v1_1 = BuildCatalogTablesV1_1();
  return version == CatalogVersion::kV1_1 ? v1_1 : CatalogTablesV1_0();
}

const CatalogTable* FindCatalogTable(std::string_view name, CatalogVersion version) {
  for (const CatalogTable& table : CatalogTables(version)) {
    if (table.name == name) return &table;
  }
  return nullptr;
}

std::optional<InlinedTableName> ParseInlinedTableName(std::string_view name) {
  if (name.starts_with(kInlinedDataPrefix)) {
    std::string_view ids = name.substr(kInlinedDataPrefix.size());
    size_t separator = ids.find('_');
    if (separator == std::string_view::npos) return std::nullopt;
    std::optional<int64_t> table_id = ParseId(ids.substr(0, separator));
    std::optional<int64_t> schema_version = ParseId(ids.substr(separator + 1));
    if (!table_id || !schema_version) return std::nullopt;
    return InlinedTableName{InlinedTableName::kData, *table_id, *schema_version};
  }
  if (name.starts_with(kInlinedDeletePrefix)) {
    std::optional<int64_t> table_id = ParseId(name.substr(kInlinedDeletePrefix.size()));
    if (!table_id) return std::nullopt;
    return InlinedTableName{InlinedTableName::kDelete, *table_id, 0};
  }
  return std::nullopt;
}

std::string InlinedDataTableName(int64_t table_id, int64_t schema_version) {
  RequireId(table_id, "table_id");
  RequireId(schema_version, "schema_version");
  std::string name(kInlinedDataPrefix);
  name += std::to_string(table_id);
  name += '_';
  name += std::to_string(schema_version);
  return name;
}

std::string InlinedDeleteTableName(int64_t table_id) {
  RequireId(table_id, "table_id");
  std::string name(kInlinedDeletePrefix);
  name += std::to_string(table_id);
  return name;
}

std::string FormatInlinedTableName(const InlinedTableName& name) {
  return name.kind == InlinedTableName::kData
             ? InlinedDataTableName(name.table_id, name.schema_version)
             : InlinedDeleteTableName(name.table_id);
}

const std::vector<TableColumn>& InlinedDataLeadingColumns() {
  static const std::vector<TableColumn> columns = {
      {"row_id", kBigint, true},
      {"begin_snapshot", kBigint, true},
      {"end_snapshot", kBigint, true},
  };
  return columns;
}

bool IsInlinedUserColumn(std::string_view table_name, size_t index) {
  const auto name = ParseInlinedTableName(table_name);
  return name && name->kind == InlinedTableName::kData &&
         index >= InlinedDataLeadingColumns().size();
}

const std::vector<TableColumn>& InlinedDeleteColumns() {
  static const std::vector<TableColumn> columns = {
      {"file_id", kBigint, true},
      {"row_id", kBigint, true},
      {"begin_snapshot", kBigint, true},
  };
  return columns;
}

}  // namespace moraine::catalog
