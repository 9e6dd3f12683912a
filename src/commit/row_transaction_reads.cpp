// The reads by key that moraine's native DuckLake metadata manager answers:
// one snapshot, one table's stats, one table's highest column id, each a scan
// narrowed to the keys it needs.
#include <algorithm>
#include <functional>
#include <string_view>

#include "commit/row_transaction.h"
#include "store/error.h"

namespace moraine::commit {
namespace {

// Visits the rows of `table` whose first wanted column (a leading key column)
// is `key`, with the `columns` named filled in at the indexes passed to
// `visit` (the position of each named column in the table as served).
void ScanOfTable(RowTransaction& rows, std::string_view table, int64_t key,
                 const std::vector<std::string_view>& columns,
                 const std::function<void(const std::vector<size_t>&, const Row&)>& visit) {
  const auto spec = rows.FindTable(table);
  if (!spec) throw store::NotFoundError("table " + std::string(table) + " does not exist");
  std::vector<size_t> indexes;
  for (std::string_view name : columns) {
    auto at = std::find_if(spec->columns.begin(), spec->columns.end(),
                           [&](const ColumnSpec& column) { return column.name == name; });
    if (at == spec->columns.end()) {
      throw store::InvalidArgumentError(std::string(table) + " has no column " + std::string(name));
    }
    indexes.push_back(static_cast<size_t>(at - spec->columns.begin()));
  }
  const ScanRequest request{
      {ColumnBound{.column = indexes[0], .lower = key, .upper = key}}, indexes, false};
  rows.ScanProjected(table, request, [&](RowHandle, const Row& row) {
    // The bound narrows the scan; it does not promise to filter.
    const Cell& id = row[indexes[0]];
    if (std::holds_alternative<int64_t>(id) && std::get<int64_t>(id) == key) {
      visit(indexes, row);
    }
  });
}

template <class T>
std::optional<T> Optional(const Cell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  return std::get<T>(cell);
}

}  // namespace

std::optional<SnapshotCounters> RowTransaction::SnapshotAt(int64_t snapshot_id) {
  std::optional<SnapshotCounters> found;
  ScanOfTable(*this, "ducklake_snapshot", snapshot_id,
              {"snapshot_id", "schema_version", "next_catalog_id", "next_file_id"},
              [&](const std::vector<size_t>& at, const Row& row) {
                found = SnapshotCounters{snapshot_id, Optional<int64_t>(row[at[1]]).value_or(0),
                                         Optional<int64_t>(row[at[2]]).value_or(0),
                                         Optional<int64_t>(row[at[3]]).value_or(0)};
              });
  return found;
}

std::optional<TableStats> RowTransaction::GlobalTableStats(int64_t table_id) {
  std::optional<TableStats> stats;
  ScanOfTable(*this, "ducklake_table_stats", table_id,
              {"table_id", "record_count", "next_row_id", "file_size_bytes"},
              [&](const std::vector<size_t>& at, const Row& row) {
                const auto records = Optional<int64_t>(row[at[1]]);
                const auto bytes = Optional<int64_t>(row[at[3]]);
                if (!records || !bytes) return;
                stats = TableStats{
                    table_id, *records, Optional<int64_t>(row[at[2]]).value_or(0), *bytes, {}};
              });
  if (!stats) return std::nullopt;
  ScanOfTable(*this, "ducklake_table_column_stats", table_id,
              {"table_id", "column_id", "contains_null", "contains_nan", "min_value", "max_value",
               "extra_stats"},
              [&](const std::vector<size_t>& at, const Row& row) {
                stats->columns.push_back(ColumnStats{
                    Optional<int64_t>(row[at[1]]).value_or(0), Optional<bool>(row[at[2]]),
                    Optional<bool>(row[at[3]]), Optional<std::string>(row[at[4]]),
                    Optional<std::string>(row[at[5]]), Optional<std::string>(row[at[6]])});
              });
  std::sort(stats->columns.begin(), stats->columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.column_id < b.column_id; });
  return stats;
}

std::optional<int64_t> RowTransaction::MaxColumnId(int64_t table_id) {
  std::optional<int64_t> max;
  ScanOfTable(*this, "ducklake_column", table_id, {"table_id", "column_id"},
              [&](const std::vector<size_t>& at, const Row& row) {
                const auto id = Optional<int64_t>(row[at[1]]);
                if (id && (!max || *id > *max)) max = id;
              });
  return max;
}

}  // namespace moraine::commit
