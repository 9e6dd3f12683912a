// DuckLake's lookup of the inlined data table a commit appends a table's
// inlined rows to, answered from the store. Every commit that inlines rows
// asks, through Query(snapshot, query), for the row of
// ducklake_inlined_data_tables with the table's largest schema_version
// (DuckLakeMetadataManager::LatestInlinedTableQuery). It was a third of a
// one-row INSERT's catalog statements' time.
//
// The query is recognised by its table id and then compared, whole, with the
// text DuckLake's exported LatestInlinedTableQuery gives for that id, so
// moraine keeps no copy of DuckLake's SQL.
//
// Thread-safety: functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "commit/rows/row_transaction.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"

namespace moraine::ducklake_adapter {

// The address of DuckLake's exported
//   static string DuckLakeMetadataManager::LatestInlinedTableQuery(idx_t table_id)
using LatestInlinedTableQueryFunction = std::string (*)(uint64_t table_id);

// The table id `query` asks about, when `query` is exactly DuckLake's lookup
// for it (with or without the ';' DuckLake appends).
std::optional<int64_t> LatestInlinedTableQueryOf(LatestInlinedTableQueryFunction text_for,
                                                 const std::string& query);

// The lookup's rows (table_name, schema_version) as `rows` sees them, staged
// writes included: none, or the inlined data table of `table_id` with the
// largest schema version.
duckdb::unique_ptr<duckdb::QueryResult> LatestInlinedTableResult(duckdb::ClientContext& context,
                                                                 commit::RowTransaction& rows,
                                                                 int64_t table_id);

}  // namespace moraine::ducklake_adapter
