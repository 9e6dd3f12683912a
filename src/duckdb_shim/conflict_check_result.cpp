#include "duckdb_shim/conflict_check_result.h"

#include <optional>

#include "duckdb/common/types/column/column_data_collection.hpp"
#include "duckdb/common/types/data_chunk.hpp"
#include "duckdb/main/materialized_query_result.hpp"

namespace moraine::duckdb_shim {
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

// Appends rows to a collection a chunk at a time.
class RowWriter {
 public:
  RowWriter(duckdb::ColumnDataCollection& collection, const duckdb::vector<LogicalType>& types)
      : collection_(collection) {
    chunk_.Initialize(duckdb::Allocator::DefaultAllocator(), types);
  }
  // A row of NULLs, to be filled with Set.
  void NewRow() {
    if (chunk_.size() == STANDARD_VECTOR_SIZE) Flush();
    row_ = chunk_.size();
    chunk_.SetCardinality(row_ + 1);
    for (duckdb::idx_t column = 0; column < kColumnCount; ++column) {
      chunk_.SetValue(column, row_, Value(chunk_.data[column].GetType()));
    }
  }
  void Set(Column column, const Value& value) { chunk_.SetValue(column, row_, value); }
  void Flush() {
    if (chunk_.size() == 0) return;
    collection_.Append(chunk_);
    chunk_.Reset();
  }

 private:
  duckdb::ColumnDataCollection& collection_;
  duckdb::DataChunk chunk_;
  duckdb::idx_t row_ = 0;
};

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

  auto collection =
      duckdb::make_uniq<duckdb::ColumnDataCollection>(duckdb::Allocator::DefaultAllocator(), types);
  RowWriter rows(*collection, types);
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
  rows.Flush();
  return duckdb::make_uniq<duckdb::MaterializedQueryResult>(
      duckdb::StatementType::SELECT_STATEMENT, duckdb::StatementProperties(), std::move(names),
      std::move(collection), context.GetClientProperties());
}

}  // namespace moraine::duckdb_shim
