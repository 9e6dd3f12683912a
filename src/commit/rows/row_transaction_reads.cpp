// The reads that moraine's native DuckLake metadata manager answers: one
// snapshot, one table's stats, one table's highest column id, its net row
// counts (each a scan narrowed to the keys it needs), and what DuckLake's
// conflict check reads.
#include <algorithm>
#include <map>
#include <vector>

#include "commit/rows/row_transaction.h"

#include "commit/rows/data_file_summary.h"
#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/table_rows.h"

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

namespace {

// A ducklake_table_stats row, or nullopt when it lacks a record count or a
// size (DuckLake's queries skip such a row).
std::optional<TableStats> TableStatsOf(const std::vector<size_t>& at, const Row& row) {
  const auto table = Optional<int64_t>(row[at[0]]);
  const auto records = Optional<int64_t>(row[at[1]]);
  const auto bytes = Optional<int64_t>(row[at[3]]);
  if (!table || !records || !bytes) return std::nullopt;
  return TableStats{*table, *records, Optional<int64_t>(row[at[2]]).value_or(0), *bytes, {}};
}

ColumnStats ColumnStatsOf(const std::vector<size_t>& at, const Row& row) {
  return ColumnStats{Optional<int64_t>(row[at[1]]).value_or(0),
                     Optional<bool>(row[at[2]]),
                     Optional<bool>(row[at[3]]),
                     Optional<std::string>(row[at[4]]),
                     Optional<std::string>(row[at[5]]),
                     Optional<std::string>(row[at[6]])};
}

const std::vector<std::string_view> kTableStatsColumns = {"table_id", "record_count", "next_row_id",
                                                          "file_size_bytes"};
const std::vector<std::string_view> kColumnStatsColumns = {
    "table_id",  "column_id", "contains_null", "contains_nan",
    "min_value", "max_value", "extra_stats"};

void SortColumns(TableStats& stats) {
  std::sort(stats.columns.begin(), stats.columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.column_id < b.column_id; });
}

}  // namespace

std::optional<TableStats> RowTransaction::GlobalTableStats(int64_t table_id) {
  std::optional<TableStats> stats;
  TableRows(*this, "ducklake_table_stats", kTableStatsColumns)
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        if (auto found = TableStatsOf(at, row)) stats = std::move(found);
      });
  if (!stats) return std::nullopt;
  TableRows(*this, "ducklake_table_column_stats", kColumnStatsColumns)
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        stats->columns.push_back(ColumnStatsOf(at, row));
      });
  SortColumns(*stats);
  return stats;
}

std::vector<TableStats> RowTransaction::AllTableStats() {
  std::map<int64_t, TableStats> by_table;
  TableRows(*this, "ducklake_table_stats", kTableStatsColumns)
      .ForEachFrom(std::nullopt, [&](const std::vector<size_t>& at, const Row& row) {
        if (auto found = TableStatsOf(at, row)) by_table[found->table_id] = std::move(*found);
      });
  TableRows(*this, "ducklake_table_column_stats", kColumnStatsColumns)
      .ForEachFrom(std::nullopt, [&](const std::vector<size_t>& at, const Row& row) {
        const auto table = Optional<int64_t>(row[at[0]]);
        auto it = table ? by_table.find(*table) : by_table.end();
        if (it != by_table.end()) it->second.columns.push_back(ColumnStatsOf(at, row));
      });
  std::vector<TableStats> all;
  for (auto& [table, stats] : by_table) {
    SortColumns(stats);
    all.push_back(std::move(stats));
  }
  return all;
}

std::vector<std::string> RowTransaction::ChangesAfter(int64_t snapshot_id) {
  std::map<int64_t, std::string> by_snapshot;
  TableRows(*this, "ducklake_snapshot_changes", {"snapshot_id", "changes_made"})
      .ForEachFrom(snapshot_id + 1, [&](const std::vector<size_t>& at, const Row& row) {
        const auto id = Optional<int64_t>(row[at[0]]);
        auto text = Optional<std::string>(row[at[1]]);
        if (id && text) by_snapshot[*id] = std::move(*text);
      });
  std::vector<std::string> changes;
  for (auto& [id, text] : by_snapshot) changes.push_back(std::move(text));
  return changes;
}

int64_t RowTransaction::NetDataFileRowCount(int64_t table_id, int64_t snapshot, bool at_head,
                                            std::optional<std::string_view> inlined_deletions) {
  int64_t count = 0;
  // A sorted vector, not a set: no node to allocate per file. The files
  // come in id order from each subspace the scan visits.
  std::vector<int64_t> live_files;
  // Where the lake keeps its data files' summaries, no data file row is
  // read, and a page whose every file is live is counted from its bounds.
  const bool summarized = VisitDataFileSummaries(
      table_id,
      [&](const store::v1::DataFileSummaryBounds& bounds) {
        if (!bounds.has_record_count_sum() || !files::EveryEntryLiveAt(bounds, snapshot)) {
          return true;
        }
        live_files.insert(live_files.end(), bounds.data_file_ids().begin(),
                          bounds.data_file_ids().end());
        count += bounds.record_count_sum();
        return false;
      },
      [&](const store::v1::DataFileSummary& summary) {
        if (!files::LiveAt(summary, snapshot)) return;
        live_files.push_back(summary.data_file_id());
        count += summary.record_count();
      });
  if (!summarized) {
    TableRows(*this, "ducklake_data_file", {"table_id", "data_file_id", "record_count"})
        .ForEachLive(
            snapshot, at_head,
            [&](const std::vector<size_t>& at, const Row& row) {
              if (const auto id = Optional<int64_t>(row[at[1]])) live_files.push_back(*id);
              count += Optional<int64_t>(row[at[2]]).value_or(0);
            },
            table_id);
  }
  if (!std::is_sorted(live_files.begin(), live_files.end())) {
    std::sort(live_files.begin(), live_files.end());
  }
  const auto live = [&](const std::optional<int64_t>& file) {
    return file && std::binary_search(live_files.begin(), live_files.end(), *file);
  };
  TableRows(*this, "ducklake_delete_file", {"table_id", "data_file_id", "delete_count"})
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            if (live(Optional<int64_t>(row[at[1]]))) {
              count -= Optional<int64_t>(row[at[2]]).value_or(0);
            }
          },
          table_id);
  if (inlined_deletions && !live_files.empty()) {
    // Not versioned: a deletion counts from its begin_snapshot on.
    TableRows(*this, *inlined_deletions, {"file_id", "begin_snapshot"})
        .ForEachFrom(live_files.front(), [&](const std::vector<size_t>& at, const Row& row) {
          const auto begin = Optional<int64_t>(row[at[1]]);
          if (begin && *begin <= snapshot && live(Optional<int64_t>(row[at[0]]))) --count;
        });
  }
  return count;
}

int64_t RowTransaction::LiveInlinedRowCount(std::string_view table, int64_t snapshot) {
  // The batches that began by `snapshot`, less their rows ended by then: no
  // cell is read, and where the lake keeps the batches' summaries, no batch.
  int64_t count = 0;
  if (VisitInlinedBatchSummaries(table, snapshot,
                                 [&](const inlined::SummaryPage& page, size_t batch) {
                                   count += page.LiveRows(batch, snapshot);
                                 })) {
    return count;
  }
  ScanInlinedBatches(table, snapshot, [&](int64_t, const inlined::InlinedRowBatchView& batch) {
    for (size_t row = 0; row < batch.size(); ++row) {
      const auto end = batch.end_snapshot(row);
      count += !end || *end > snapshot;
    }
  });
  return count;
}

}  // namespace moraine::commit
