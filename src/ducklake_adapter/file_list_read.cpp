#include "ducklake_adapter/file_list_read.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "commit/rows/data_file_summary.h"
#include "commit/rows/table_rows.h"
#include "duckdb/common/string_util.hpp"
#include "store/error.h"

namespace moraine::ducklake_adapter {
namespace {

namespace abi = ducklake_abi;
using catalog::Cell;
using catalog::CellAs;
using catalog::Row;

constexpr auto IntCell = CellAs<int64_t>;
constexpr auto TextCell = CellAs<std::string>;
constexpr auto BoolCell = CellAs<bool>;

// The columns a stored data or delete file is read from, after the leading
// ones: path, path_is_relative, file_size_bytes, footer_size, encryption_key.
constexpr std::string_view kFileColumns[] = {"path", "path_is_relative", "file_size_bytes",
                                             "footer_size", "encryption_key"};

// Reads into `file` the file in `row` from column `first` on (kFileColumns'
// order); false for a row DuckLake's reader would fail on or read otherwise
// (a NULL path or size, an encryption key), which its SQL then answers.
template <class File>
bool ReadStoredFile(const std::vector<size_t>& at, const Row& row, size_t first, File& file) {
  auto path = TextCell(row[at[first]]);
  const auto relative = BoolCell(row[at[first + 1]]);
  const auto size = IntCell(row[at[first + 2]]);
  if (!path || !relative || !size || !catalog::IsNull(row[at[first + 4]])) return false;
  file.path = std::move(*path);
  file.relative = *relative;
  file.file_size_bytes = *size;
  file.footer_size = IntCell(row[at[first + 3]]);
  return true;
}

std::vector<std::string_view> WithFileColumns(std::vector<std::string_view> leading,
                                              std::vector<std::string_view> trailing = {}) {
  leading.insert(leading.end(), std::begin(kFileColumns), std::end(kFileColumns));
  leading.insert(leading.end(), trailing.begin(), trailing.end());
  return leading;
}

// The column ids of the table's live partition fields that DuckLake prunes by
// bucket value.
std::set<int64_t> BucketPartitionedColumns(commit::RowTransaction& rows, int64_t table_id,
                                           int64_t snapshot, bool at_head) {
  std::set<int64_t> live_partitions;
  commit::TableRows(rows, "ducklake_partition_info", {"table_id", "partition_id"})
      .ForEachLive(
          snapshot, at_head,
          [&](const std::vector<size_t>& at, const Row& row) {
            if (const auto id = IntCell(row[at[1]])) live_partitions.insert(*id);
          },
          table_id);
  std::set<int64_t> columns;
  if (live_partitions.empty()) return columns;
  commit::TableRows(rows, "ducklake_partition_column",
                    {"table_id", "partition_id", "column_id", "transform"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const Row& row) {
        const auto partition = IntCell(row[at[1]]);
        const auto column = IntCell(row[at[2]]);
        const auto transform = TextCell(row[at[3]]);
        if (partition && column && transform && live_partitions.count(*partition) &&
            duckdb::StringUtil::StartsWith(duckdb::StringUtil::Lower(*transform), "bucket")) {
          columns.insert(*column);
        }
      });
  return columns;
}

}  // namespace

FileGroupStats GroupStatsOf(const store::v1::FileColumnBounds& bounds) {
  FileGroupStats group;
  if (bounds.has_min_text()) group.min_text = bounds.min_text();
  if (bounds.has_max_text()) group.max_text = bounds.max_text();
  if (bounds.has_min_integer() && bounds.has_max_integer()) {
    group.integers = {bounds.min_integer(), bounds.max_integer()};
  }
  if (bounds.has_max_null_count()) group.max_null_count = bounds.max_null_count();
  if (bounds.has_max_value_count()) group.max_value_count = bounds.max_value_count();
  if (bounds.has_any_contains_nan()) group.any_contains_nan = bounds.any_contains_nan();
  return group;
}

bool FileListRead::AddFilters(const abi::FilterPushdownInfo& filters) {
  for (const auto& [field_id, column_filter] : filters.column_filters) {
    if (!column_filter.table_filter) continue;
    auto filter = FileStatsFilter::FromTableFilter(*column_filter.table_filter);
    if (!filter) return false;
    if (!filter->HasCondition()) continue;
    filters_.push_back(
        {static_cast<int64_t>(column_filter.column_field_index), std::move(*filter), {}});
  }
  return true;
}

bool FileListRead::ReadSummaries(commit::RowTransaction& rows, int64_t table_id, int64_t snapshot) {
  if (filters_.empty()) return false;
  for (const auto& filter : filters_) {
    if (filter.field_id > commit::files::kMaxSummarizedColumnId) return false;
  }
  std::vector<int64_t> live;
  // A page none of whose files one of the filters keeps is never read.
  const auto may_hold = [&](const store::v1::DataFileSummaryBounds& bounds) {
    for (const auto& filter : filters_) {
      const auto* column = commit::files::FindColumn(bounds, filter.field_id);
      if (column && !filter.filter.MayKeepAnyOf(GroupStatsOf(*column))) {
        ++pages_skipped_;
        return false;
      }
    }
    return true;
  };
  const bool summarized = rows.VisitDataFileSummaries(
      table_id, may_hold, [&](const store::v1::DataFileSummary& summary) {
        if (!commit::files::LiveAt(summary, snapshot)) return;
        live.push_back(summary.data_file_id());
        for (auto& filter : filters_) {
          const auto* entry = commit::files::FindColumn(summary, filter.field_id);
          if (!entry) continue;
          filter.stats[summary.data_file_id()] = {
              entry->has_min_value() ? std::optional(entry->min_value()) : std::nullopt,
              entry->has_max_value() ? std::optional(entry->max_value()) : std::nullopt,
              entry->has_null_count() ? std::optional(entry->null_count()) : std::nullopt,
              entry->has_value_count() ? std::optional(entry->value_count()) : std::nullopt,
              entry->has_contains_nan() ? std::optional(entry->contains_nan()) : std::nullopt};
        }
      });
  if (!summarized) {
    for (auto& filter : filters_) filter.stats.clear();
    return false;
  }
  summarized_live_ = std::move(live);
  return true;
}

void FileListRead::DecideSummarized() {
  std::set<int64_t> kept;
  for (const int64_t id : *summarized_live_) {
    if (Kept(id)) kept.insert(id);
  }
  kept_ = std::move(kept);
}

bool FileListRead::Read(commit::RowTransaction& rows, Shape shape, int64_t table_id,
                        int64_t snapshot, bool at_head, const std::string& inlined_deletions) {
  try {
    if (!filters_.empty()) {
      const auto bucketed = BucketPartitionedColumns(rows, table_id, snapshot, at_head);
      for (const auto& filter : filters_) {
        if (bucketed.count(filter.field_id)) return false;
      }
    }
    bool readable = true;
    const commit::TableRows::Visit read_data_file = [&](const std::vector<size_t>& at,
                                                        const Row& row) {
      DataFileRow file;
      const auto id = IntCell(row[at[1]]);
      // Of the files the summaries decided, those the filters keep.
      if (kept_ && id && !kept_->count(*id)) return;
      const auto begin = IntCell(row[at[8]]);
      if (!id || !begin || !ReadStoredFile(at, row, 2, file.file)) {
        readable = false;
        return;
      }
      file.id = *id;
      file.row_id_start = IntCell(row[at[7]]);
      file.begin_snapshot = *begin;
      file.partial_max = IntCell(row[at[9]]);
      file.mapping_id = IntCell(row[at[10]]);
      file.record_count = IntCell(row[at[11]]);
      // DuckLake's extended list reads the count as a number, never NULL.
      if (shape == Shape::kExtended && !file.record_count) {
        readable = false;
        return;
      }
      data_files_.push_back(std::move(file));
    };
    commit::TableRows data_file_rows(
        rows, "ducklake_data_file",
        WithFileColumns(
            {"table_id", "data_file_id"},
            {"row_id_start", "begin_snapshot", "partial_max", "mapping_id", "record_count"}));
    if (!kept_) {
      data_file_rows.ForEachLive(snapshot, at_head, read_data_file, table_id);
    } else if (!kept_->empty()) {
      data_file_rows.ForEachLiveWithin(snapshot, at_head, table_id, 1, *kept_->begin(),
                                       *kept_->rbegin(), read_data_file);
    }
    if (!readable) return false;
    commit::TableRows(rows, "ducklake_delete_file",
                      WithFileColumns({"table_id", "data_file_id"},
                                      {"format", "delete_file_id", "begin_snapshot"}))
        .ForEachLive(
            snapshot, at_head,
            [&](const std::vector<size_t>& at, const Row& row) {
              DeleteFileRow file;
              const auto data_file = IntCell(row[at[1]]);
              const auto id = IntCell(row[at[8]]);
              if (!data_file || !id || !ReadStoredFile(at, row, 2, file.file)) {
                readable = false;
                return;
              }
              if (const auto format = TextCell(row[at[7]])) {
                if (duckdb::StringUtil::CIEquals(*format, "puffin")) {
                  file.format = abi::DeleteFileFormat::kPuffin;
                } else if (!duckdb::StringUtil::CIEquals(*format, "parquet")) {
                  readable = false;  // DuckLake's own error, from its SQL
                  return;
                }
              }
              file.id = *id;
              file.begin_snapshot = IntCell(row[at[9]]);
              delete_files_.emplace(*data_file, std::move(file));
            },
            table_id);
    if (!readable) return false;
    if (!filters_.empty() && !kept_) {
      // Only the filtered columns' entries of each file's stats are decoded.
      int64_t lowest = filters_.front().field_id;
      int64_t highest = lowest;
      for (const auto& filter : filters_) {
        lowest = std::min(lowest, filter.field_id);
        highest = std::max(highest, filter.field_id);
      }
      commit::TableRows(rows, "ducklake_file_column_stats",
                        {"table_id", "data_file_id", "column_id", "min_value", "max_value",
                         "null_count", "value_count", "contains_nan"})
          .ForEachWithKeyWithin(
              table_id, 2, lowest, highest, [&](const std::vector<size_t>& at, const Row& row) {
                const auto file = IntCell(row[at[1]]);
                const auto column = IntCell(row[at[2]]);
                if (!file || !column) return;
                for (auto& filter : filters_) {
                  if (filter.field_id != *column) continue;
                  filter.stats[*file] = {TextCell(row[at[3]]), TextCell(row[at[4]]),
                                         IntCell(row[at[5]]), IntCell(row[at[6]]),
                                         BoolCell(row[at[7]])};
                }
              });
    }
    if (!inlined_deletions.empty()) {
      commit::TableRows(rows, inlined_deletions, {"file_id", "row_id", "begin_snapshot"})
          .ForEachFrom(std::nullopt, [&](const std::vector<size_t>& at, const Row& row) {
            const auto file = IntCell(row[at[0]]);
            const auto row_id = IntCell(row[at[1]]);
            const auto begin = IntCell(row[at[2]]);
            if (!file || !row_id || !begin) {
              readable = false;
              return;
            }
            if (*begin <= snapshot)
              deleted_rows_[*file].insert(static_cast<duckdb::idx_t>(*row_id));
          });
    }
    return readable;
  } catch (const store::Error&) {
    // A catalog without a table or column DuckLake's query names: its SQL
    // answers, with its own error.
    return false;
  }
}

abi::DuckLakeFileData FileListRead::Loaded(const LoadPath& load_path, const StoredFile& stored) {
  abi::DuckLakeFileData data;
  data.path = load_path(stored.path, stored.relative);
  data.file_size_bytes = static_cast<uint64_t>(stored.file_size_bytes);
  if (stored.footer_size) data.footer_size = static_cast<duckdb::idx_t>(*stored.footer_size);
  return data;
}

template <class Entry, class WithDelete>
void FileListRead::AppendPerDeleteFile(duckdb::vector<Entry>& files, Entry entry, int64_t data_file,
                                       const WithDelete& with_delete) const {
  const auto [first, last] = delete_files_.equal_range(data_file);
  if (first == last) {
    files.push_back(std::move(entry));
    return;
  }
  for (auto it = first; it != last; ++it) {
    Entry copy = entry;
    with_delete(it->second, copy);
    files.push_back(std::move(copy));
  }
}

bool FileListRead::Kept(int64_t data_file_id) {
  // DecideSummarized decided, and counted what it pruned.
  if (kept_) return kept_->count(data_file_id) != 0;
  for (const auto& filter : filters_) {
    const auto stats = filter.stats.find(data_file_id);
    if (!filter.filter.Keeps(stats == filter.stats.end() ? nullptr : &stats->second)) {
      ++pruned_;
      return false;
    }
  }
  return true;
}

duckdb::vector<abi::DuckLakeFileListEntry> FileListRead::Finish(const LoadPath& load_path,
                                                                uint64_t snapshot) {
  duckdb::vector<abi::DuckLakeFileListEntry> files;
  for (const auto& file : data_files_) {
    if (!Kept(file.id)) continue;
    abi::DuckLakeFileListEntry entry;
    entry.file_id = {static_cast<uint64_t>(file.id)};
    entry.file = Loaded(load_path, file.file);
    if (file.row_id_start) entry.row_id_start = static_cast<duckdb::idx_t>(*file.row_id_start);
    entry.snapshot_id = static_cast<duckdb::idx_t>(file.begin_snapshot);
    // Only the rows of snapshots up to this one, of a file that holds later ones.
    if (file.partial_max && static_cast<uint64_t>(*file.partial_max) > snapshot) {
      entry.snapshot_filter_max = snapshot;
    }
    if (file.mapping_id) entry.mapping_id.index = static_cast<uint64_t>(*file.mapping_id);
    if (const auto deleted = deleted_rows_.find(file.id); deleted != deleted_rows_.end()) {
      entry.inlined_file_deletions = deleted->second;
    }
    AppendPerDeleteFile(files, std::move(entry), file.id,
                        [&](const DeleteFileRow& delete_file, abi::DuckLakeFileListEntry& with) {
                          with.delete_file = Loaded(load_path, delete_file.file);
                          with.delete_file.format = delete_file.format;
                        });
  }
  return files;
}

// DuckLake's extended list sets no snapshot filter and no inlined
// deletions: a delete's scan reads every row of its files.
duckdb::vector<abi::DuckLakeFileListExtendedEntry> FileListRead::FinishExtended(
    const LoadPath& load_path) {
  duckdb::vector<abi::DuckLakeFileListExtendedEntry> files;
  for (const auto& file : data_files_) {
    if (!Kept(file.id)) continue;
    abi::DuckLakeFileListExtendedEntry entry;
    entry.file_id = {static_cast<uint64_t>(file.id)};
    entry.row_count = static_cast<duckdb::idx_t>(*file.record_count);
    entry.file = Loaded(load_path, file.file);
    if (file.row_id_start) entry.row_id_start = static_cast<duckdb::idx_t>(*file.row_id_start);
    if (file.mapping_id) entry.mapping_id.index = static_cast<uint64_t>(*file.mapping_id);
    AppendPerDeleteFile(
        files, std::move(entry), file.id,
        [&](const DeleteFileRow& delete_file, abi::DuckLakeFileListExtendedEntry& with) {
          with.delete_file_id = {static_cast<uint64_t>(delete_file.id)};
          with.delete_file = Loaded(load_path, delete_file.file);
          with.delete_file.format = delete_file.format;
          if (delete_file.begin_snapshot) {
            with.delete_file_begin_snapshot =
                static_cast<duckdb::idx_t>(*delete_file.begin_snapshot);
          }
        });
  }
  return files;
}

}  // namespace moraine::ducklake_adapter
