// DuckLake's file list of a table scan (DuckLakeMetadataManager::
// GetFilesForTable: the table's data files live at a snapshot, each with its
// live delete file and its deletions inlined in the catalog, less the files
// whose column stats show that the scan's filters cannot match; and
// GetExtendedFilesForTable, the same files with their row counts and delete
// file ids, for the scans of deletes and updates), answered from the store
// instead of by DuckLake's SQL over ducklake_data_file, ducklake_delete_file
// and ducklake_file_column_stats.
//
// The files are pruned with the stats moraine keeps per file, by the
// condition DuckLake would write for each filter (file_stats_filter.h), so a
// selective scan of a table of many files reads the rows of its candidates
// only. What DuckLake's SQL would answer otherwise is left to it: a filter
// FileStatsFilter refuses, a bucket-partitioned table (DuckLake also prunes
// by the partition values it folds the filter's constants into), an
// encrypted lake, and rows DuckLake itself would fail to read.
//
// Files come in data file id order (the order of the store's keys, which
// DuckLake's SQL over them gives too), one entry per live delete file of a
// file, as DuckLake's LEFT JOIN gives them.
//
// The read has two steps, like InlinedDataRead's: Read, under the moraine
// transaction's lock, copies the rows out of the store; Finish, holding no
// lock, decides the filters (casting stats to a filter's type may look a type
// up in any attached catalog) and builds DuckLake's entries.
//
// Where the lake keeps data file summaries (commit/rows/data_file_summary.h)
// two steps come first: ReadSummaries, under the lock, copies the filtered
// columns' stats of every live file out of the summary pages whose bounds
// the filters cannot rule out (deciding that casts no text a type lookup
// could need: FileStatsFilter::MayKeepAnyOf), and DecideSummarized, holding
// no lock, decides which files the filters keep; Read then reads the rows of
// those files only, and no stats rows.
//
// Thread-safety: one read at a time per object.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/common/vector.hpp"
#include "ducklake_adapter/ducklake_file_list_abi.h"
#include "ducklake_adapter/file_stats_filter.h"

namespace moraine::ducklake_adapter {

// The stats a data file summary page's bounds give of its files' column.
FileGroupStats GroupStatsOf(const store::v1::FileColumnBounds& bounds);

class FileListRead {
 public:
  // A file's path as DuckLake's FromRelativePath(path, table.DataPath()) loads it.
  using LoadPath = std::function<std::string(const std::string& path, bool relative)>;

  // Adds the filters DuckDB pushed into the scan; false when one must be
  // left to DuckLake's SQL.
  bool AddFilters(const ducklake_abi::FilterPushdownInfo& filters);

  // Which of DuckLake's two lists is read.
  enum class Shape { kFiles, kExtended };

  // Copies out the filtered columns' stats of the table's files live at
  // `snapshot` from the lake's data file summaries; false (and nothing
  // copied) when the lake keeps none, the transaction stages files of the
  // table, there is no filter, or a filter's column is not summarized: Read
  // then reads the stats rows.
  bool ReadSummaries(commit::RowTransaction& rows, int64_t table_id, int64_t snapshot);
  // Decides which of the files ReadSummaries found the filters keep. Call
  // after a ReadSummaries that returned true and before Read.
  void DecideSummarized();

  // Copies the table's rows live at `snapshot` (`at_head`: the snapshot is
  // the head the transaction reads, with nothing staged) out of the store.
  // `inlined_deletions` names the table's inlined deletion table when the
  // list carries inlined deletions (kFiles), else is empty. False when
  // DuckLake's SQL must answer.
  bool Read(commit::RowTransaction& rows, Shape shape, int64_t table_id, int64_t snapshot,
            bool at_head, const std::string& inlined_deletions);

  // DuckLake's entries for the rows read: GetFilesForTable's, and
  // GetExtendedFilesForTable's.
  duckdb::vector<ducklake_abi::DuckLakeFileListEntry> Finish(const LoadPath& load_path,
                                                             uint64_t snapshot);
  duckdb::vector<ducklake_abi::DuckLakeFileListExtendedEntry> FinishExtended(
      const LoadPath& load_path);

  // Data files the filters pruned in Finish.
  uint64_t pruned() const { return pruned_; }
  // Data file summary pages ReadSummaries ruled out by their bounds, unread.
  uint64_t pages_skipped() const { return pages_skipped_; }

 private:
  struct StoredFile {
    std::string path;
    bool relative = false;
    int64_t file_size_bytes = 0;
    std::optional<int64_t> footer_size;
  };
  struct DataFileRow {
    int64_t id = 0;
    StoredFile file;
    std::optional<int64_t> row_id_start;
    int64_t begin_snapshot = 0;
    std::optional<int64_t> partial_max;
    std::optional<int64_t> mapping_id;
    std::optional<int64_t> record_count;
  };
  struct DeleteFileRow {
    int64_t id = 0;
    StoredFile file;
    ducklake_abi::DeleteFileFormat format = ducklake_abi::DeleteFileFormat::kParquet;
    std::optional<int64_t> begin_snapshot;
  };
  struct ColumnFilter {
    int64_t field_id;
    FileStatsFilter filter;
    std::unordered_map<int64_t, FileColumnStats> stats;  // by data file id
  };

  // Whether the filters keep data file `data_file_id`; counts it in pruned_
  // if not (unless DecideSummarized decided it, and counted it).
  bool Kept(int64_t data_file_id);
  // The file as DuckLake's reader loads it.
  static ducklake_abi::DuckLakeFileData Loaded(const LoadPath& load_path, const StoredFile& stored);
  // Appends `entry` once per live delete file of `data_file`, each copy
  // given its delete file by `with_delete`, or once as it is when the file
  // has none: as DuckLake's LEFT JOIN gives them.
  template <class Entry, class WithDelete>
  void AppendPerDeleteFile(duckdb::vector<Entry>& files, Entry entry, int64_t data_file,
                           const WithDelete& with_delete) const;

  // The data files the summaries show live, ascending (ReadSummaries), and
  // of those the ones the filters keep (DecideSummarized).
  std::optional<std::vector<int64_t>> summarized_live_;
  std::optional<std::set<int64_t>> kept_;
  std::vector<ColumnFilter> filters_;
  std::deque<DataFileRow> data_files_;                          // in data file id order
  std::multimap<int64_t, DeleteFileRow> delete_files_;          // by data file id
  std::map<int64_t, duckdb::set<duckdb::idx_t>> deleted_rows_;  // inlined, by data file id
  uint64_t pruned_ = 0;
  uint64_t pages_skipped_ = 0;
};

}  // namespace moraine::ducklake_adapter
