// RowTransaction::GlobalTableStats: DuckLake's global-stats read of one table,
// as two scans narrowed to the table's keys.
#include <algorithm>
#include <string_view>

#include "commit/row_transaction.h"
#include "store/error.h"

namespace moraine::commit {
namespace {

// The position of each wanted column in `table` as this transaction serves it.
std::vector<size_t> ColumnIndexes(RowTransaction& rows, std::string_view table,
                                  const std::vector<std::string_view>& names) {
  const auto spec = rows.FindTable(table);
  if (!spec) throw store::NotFoundError("table " + std::string(table) + " does not exist");
  std::vector<size_t> indexes;
  for (std::string_view name : names) {
    auto at = std::find_if(spec->columns.begin(), spec->columns.end(),
                           [&](const ColumnSpec& column) { return column.name == name; });
    if (at == spec->columns.end()) {
      throw store::InvalidArgumentError(std::string(table) + " has no column " + std::string(name));
    }
    indexes.push_back(static_cast<size_t>(at - spec->columns.begin()));
  }
  return indexes;
}

template <class T>
std::optional<T> Optional(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  return std::get<T>(cell);
}

}  // namespace

std::optional<TableStats> RowTransaction::GlobalTableStats(int64_t table_id) {
  const auto table = ColumnIndexes(*this, "ducklake_table_stats",
                                   {"table_id", "record_count", "next_row_id", "file_size_bytes"});
  std::optional<TableStats> stats;
  ScanProjected(
      "ducklake_table_stats",
      {{ColumnBound{.column = table[0], .lower = table_id, .upper = table_id}}, table, false},
      [&](RowHandle, const Row& row) {
        if (Optional<int64_t>(row[table[0]]) != table_id) return;
        const auto records = Optional<int64_t>(row[table[1]]);
        const auto bytes = Optional<int64_t>(row[table[3]]);
        if (!records || !bytes) return;
        stats = TableStats{
            table_id, *records, Optional<int64_t>(row[table[2]]).value_or(0), *bytes, {}};
      });
  if (!stats) return std::nullopt;
  const auto column = ColumnIndexes(*this, "ducklake_table_column_stats",
                                    {"table_id", "column_id", "contains_null", "contains_nan",
                                     "min_value", "max_value", "extra_stats"});
  ScanProjected(
      "ducklake_table_column_stats",
      {{ColumnBound{.column = column[0], .lower = table_id, .upper = table_id}}, column, false},
      [&](RowHandle, const Row& row) {
        if (Optional<int64_t>(row[column[0]]) != table_id) return;
        stats->columns.push_back(ColumnStats{
            Optional<int64_t>(row[column[1]]).value_or(0), Optional<bool>(row[column[2]]),
            Optional<bool>(row[column[3]]), Optional<std::string>(row[column[4]]),
            Optional<std::string>(row[column[5]]), Optional<std::string>(row[column[6]])});
      });
  std::sort(stats->columns.begin(), stats->columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.column_id < b.column_id; });
  return stats;
}

}  // namespace moraine::commit
