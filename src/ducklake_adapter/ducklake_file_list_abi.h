// The DuckLake structs of a table scan's file list (what
// DuckLakeMetadataManager::GetFilesForTable and GetExtendedFilesForTable take
// and return), declared
// member for member as DuckLake 1.5.5 (source commit d8a1881e) declares them
// in storage/ducklake_metadata_info.hpp, storage/ducklake_metadata_manager.hpp
// and storage/ducklake_table_entry.hpp, for moraine's native metadata
// manager. Their layouts are checked against every known DuckLake build at
// compile time (declared_layouts.h); the e2e and differential tiers compare
// every scan served with them against DuckLake's own SQL answer.
//
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb/common/optional_idx.hpp"
#include "duckdb/common/set.hpp"
#include "duckdb/common/types.hpp"
#include "duckdb/common/unique_ptr.hpp"
#include "duckdb/common/unordered_map.hpp"
#include "duckdb/planner/table_filter.hpp"
#include "ducklake_adapter/ducklake_manager_abi.h"

namespace moraine::ducklake_adapter::ducklake_abi {

// duckdb::DeleteFileFormat: how a delete file holds its deletions.
enum class DeleteFileFormat : uint8_t { kParquet, kPuffin };

// duckdb::DuckLakeDataType: where a file list entry's rows are.
enum class DuckLakeDataType : int { kDataFile, kInlinedData, kTransactionLocalInlinedData };

// duckdb::MappingIndex: a column mapping id, DConstants::INVALID_INDEX when none.
struct MappingIndex {
  uint64_t index = duckdb::DConstants::INVALID_INDEX;
};

// duckdb::DuckLakeFileData: a data or delete file as a scan opens it.
struct DuckLakeFileData {
  std::string path;
  std::string encryption_key;
  uint64_t file_size_bytes = 0;
  duckdb::optional_idx footer_size;
  DeleteFileFormat format = DeleteFileFormat::kParquet;
};

// duckdb::DuckLakeFileListEntry: one data file of a scan, with its delete file.
struct DuckLakeFileListEntry {
  duckdb::optional_idx data_file_id;
  DuckLakeFileData file;
  DuckLakeFileData delete_file;
  duckdb::optional_idx row_id_start;
  duckdb::optional_idx snapshot_id;
  duckdb::optional_idx max_row_count;
  // Only the file's rows whose _ducklake_internal_snapshot_id is at most this.
  duckdb::optional_idx snapshot_filter_max;
  duckdb::optional_idx snapshot_filter_min;
  MappingIndex mapping_id;
  DuckLakeDataType data_type = DuckLakeDataType::kDataFile;
  DataFileIndex file_id{duckdb::DConstants::INVALID_INDEX};
  // Row positions deleted by deletions inlined in the catalog.
  duckdb::set<duckdb::idx_t> inlined_file_deletions;
  // Per column field id, the file's min and max (Top-N scans only).
  duckdb::unordered_map<duckdb::idx_t, std::pair<std::string, std::string>> column_min_max;
};

// duckdb::DuckLakeFileListExtendedEntry: one data file of a delete's or an
// update's scan, with its delete file's id and begin snapshot.
struct DuckLakeFileListExtendedEntry {
  DataFileIndex file_id{duckdb::DConstants::INVALID_INDEX};
  DataFileIndex delete_file_id{duckdb::DConstants::INVALID_INDEX};
  DuckLakeFileData file;
  DuckLakeFileData delete_file;
  duckdb::optional_idx row_id_start;
  duckdb::optional_idx snapshot_id;
  duckdb::optional_idx delete_file_begin_snapshot;
  duckdb::idx_t row_count;
  duckdb::idx_t delete_count = 0;
  MappingIndex mapping_id;
  DuckLakeDataType data_type = DuckLakeDataType::kDataFile;
};

// duckdb::ColumnFilterInfo and duckdb::FilterPushdownInfo: the filters DuckDB
// pushed into a DuckLake scan, per column field id.
struct ColumnFilterInfo {
  duckdb::idx_t column_field_index;
  duckdb::LogicalType column_type;
  duckdb::unique_ptr<duckdb::TableFilter> table_filter;
};
struct FilterPushdownInfo {
  duckdb::unordered_map<duckdb::idx_t, ColumnFilterInfo> column_filters;
};

// duckdb::DuckLakeTableEntry, as far as its table id: DuckDB's table entry,
// then the id. Never constructed; a scan's entry is DuckLake's.
struct DuckLakeTableEntry : duckdb::TableCatalogEntry {
  TableIndex table_id;
};

// The exported functions the file list calls.
//   const string &DuckLakeTableEntry::DataPath() const
inline constexpr const char* kTableDataPathSymbol =
    "_ZNK6duckdb18DuckLakeTableEntry8DataPathB5cxx11Ev";
//   bool DuckLakeMetadataManager::IsEncrypted() const
inline constexpr const char* kIsEncryptedSymbol =
    "_ZNK6duckdb23DuckLakeMetadataManager11IsEncryptedEv";

}  // namespace moraine::ducklake_adapter::ducklake_abi
