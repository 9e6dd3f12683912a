// DuckLake's read of a table's inlined rows (DuckLakeMetadataManager::
// ReadInlinedData: the rows of ducklake_inlined_data_<table>_<version> live
// at a snapshot, projected, in row id order), answered from the store's row
// batches (commit/rows/inlined_row_batch.h) instead of by SQL over a row per key.
// Only the batches that began by the snapshot are read, only the projected
// columns' cells are decoded, and plain cells decode with one copy each
// (duckdb_shim/column_codec.h): a scan costs about what a DuckDB table's does.
//
// DuckLake names the columns to read as SQL: an optionally quoted column
// name, or `CAST(<name> AS <type>)` (what its CastColumnToTarget writes for a
// catalog that is not DuckDB's). Any other projection is left to DuckLake's
// SQL.
//
// Thread-safety: functions of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"

namespace moraine::ducklake_adapter {

// The rows DuckLake's ReadInlinedData(snapshot, table, columns) returns, as
// `rows` sees them (staged writes included); null when `table` is not an
// inlined data table `rows` holds or a column is not one this reads, for
// DuckLake's SQL to answer (and raise its own error).
duckdb::unique_ptr<duckdb::QueryResult> InlinedDataResult(duckdb::ClientContext& context,
                                                          commit::RowTransaction& rows,
                                                          int64_t snapshot,
                                                          const std::string& table,
                                                          const std::vector<std::string>& columns);

}  // namespace moraine::ducklake_adapter
