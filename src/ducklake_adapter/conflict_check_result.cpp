#include "ducklake_adapter/conflict_check_result.h"

#include <optional>

#include "ducklake_adapter/result_rows.h"

namespace moraine::ducklake_adapter {
namespace {

using duckdb::LogicalType;
using duckdb::Value;

// The query's columns, in its order.
enum Column : duckdb::idx_t {
  kSnapshotId,
  kSchemaVersion,
  kNextCatalogId,
  kNextFileId,
  kChanges,
  kTableId,
  kColumnId,
  kRecordCount,
  kNextRowId,
  kFileSizeBytes,
  kContainsNull,
  kContainsNan,
  kMinValue,
  kMaxValue,
  kExtraStats,
  kColumnCount
};

Value Text(const std::optional<std::string>& text) {
  return text ? Value(*text) : Value(LogicalType::VARCHAR);
}

Value Flag(const std::optional<bool>& flag) {
  return flag ? Value::BOOLEAN(*flag) : Value(LogicalType::BOOLEAN);
}

}  // namespace

duckdb::unique_ptr<duckdb::QueryResult> ConflictCheckResult(
    duckdb::ClientContext& context, const commit::SnapshotCounters& head,
    const std::vector<std::string>& changes_after, const std::vector<commit::TableStats>& stats) {
  duckdb::vector<std::string> names = {
      "snapshot_id",   "schema_version", "next_catalog_id", "next_file_id", "changes",
      "table_id",      "column_id",      "record_count",    "next_row_id",  "file_size_bytes",
      "contains_null", "contains_nan",   "min_value",       "max_value",    "extra_stats"};
  duckdb::vector<LogicalType> types(kColumnCount, LogicalType::BIGINT);
  for (Column text : {kChanges, kMinValue, kMaxValue, kExtraStats})
    types[text] = LogicalType::VARCHAR;
  for (Column flag : {kContainsNull, kContainsNan}) types[flag] = LogicalType::BOOLEAN;

  ResultRows rows(std::move(names), std::move(types));
  rows.NewRow();
  rows.Set(kSnapshotId, Value::BIGINT(head.snapshot_id));
  rows.Set(kSchemaVersion, Value::BIGINT(head.schema_version));
  rows.Set(kNextCatalogId, Value::BIGINT(head.next_catalog_id));
  rows.Set(kNextFileId, Value::BIGINT(head.next_file_id));
  std::string changes;
  for (const auto& text : changes_after) {
    if (!changes.empty()) changes += ',';
    changes += text;
  }
  rows.Set(kChanges, Value(changes));
  for (const auto& table : stats) {
    auto table_row = [&] {
      rows.NewRow();
      rows.Set(kTableId, Value::BIGINT(table.table_id));
      rows.Set(kRecordCount, Value::BIGINT(table.record_count));
      rows.Set(kNextRowId, Value::BIGINT(table.next_row_id));
      rows.Set(kFileSizeBytes, Value::BIGINT(table.file_size_bytes));
    };
    if (table.columns.empty()) table_row();  // the LEFT JOIN's row without column stats
    for (const auto& column : table.columns) {
      table_row();
      rows.Set(kColumnId, Value::BIGINT(column.column_id));
      rows.Set(kContainsNull, Flag(column.contains_null));
      rows.Set(kContainsNan, Flag(column.contains_nan));
      rows.Set(kMinValue, Text(column.min_value));
      rows.Set(kMaxValue, Text(column.max_value));
      rows.Set(kExtraStats, Text(column.extra_stats));
    }
  }
  return rows.Finish(context.GetClientProperties());
}

}  // namespace moraine::ducklake_adapter
