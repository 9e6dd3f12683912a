// The reads by key that moraine's native DuckLake metadata manager answers:
// one snapshot, one table's stats, one table's highest column id, each a scan
// narrowed to the keys it needs.
#include <algorithm>

#include "commit/row_transaction.h"
#include "commit/table_rows.h"

namespace moraine::commit {
namespace {

template <class T>
std::optional<T> Optional(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  return std::get<T>(cell);
}

}  // namespace

std::optional<SnapshotCounters> RowTransaction::SnapshotAt(int64_t snapshot_id) {
  std::optional<SnapshotCounters> found;
  TableRows(*this, "ducklake_snapshot",
            {"snapshot_id", "schema_version", "next_catalog_id", "next_file_id"})
      .ForEachWithKey(snapshot_id, [&](const std::vector<size_t>& at, const Row& row) {
        found = SnapshotCounters{snapshot_id, Optional<int64_t>(row[at[1]]).value_or(0),
                                 Optional<int64_t>(row[at[2]]).value_or(0),
                                 Optional<int64_t>(row[at[3]]).value_or(0)};
      });
  return found;
}

std::optional<TableStats> RowTransaction::GlobalTableStats(int64_t table_id) {
  std::optional<TableStats> stats;
  TableRows(*this, "ducklake_table_stats",
            {"table_id", "record_count", "next_row_id", "file_size_bytes"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        const auto records = Optional<int64_t>(row[at[1]]);
        const auto bytes = Optional<int64_t>(row[at[3]]);
        if (!records || !bytes) return;
        stats =
            TableStats{table_id, *records, Optional<int64_t>(row[at[2]]).value_or(0), *bytes, {}};
      });
  if (!stats) return std::nullopt;
  TableRows(*this, "ducklake_table_column_stats",
            {"table_id", "column_id", "contains_null", "contains_nan", "min_value", "max_value",
             "extra_stats"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        stats->columns.push_back(
            ColumnStats{Optional<int64_t>(row[at[1]]).value_or(0), Optional<bool>(row[at[2]]),
                        Optional<bool>(row[at[3]]), Optional<std::string>(row[at[4]]),
                        Optional<std::string>(row[at[5]]), Optional<std::string>(row[at[6]])});
      });
  std::sort(stats->columns.begin(), stats->columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.column_id < b.column_id; });
  return stats;
}

std::optional<int64_t> RowTransaction::MaxColumnId(int64_t table_id) {
  std::optional<int64_t> max;
  TableRows(*this, "ducklake_column", {"table_id", "column_id"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        const auto id = Optional<int64_t>(row[at[1]]);
        if (id && (!max || *id > *max)) max = id;
      });
  return max;
}

}  // namespace moraine::commit
