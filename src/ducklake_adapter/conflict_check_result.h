// DuckLake's conflict-check query answered from the store. When a commit
// loses its race, DuckLake re-reads, in one SQL statement
// (DuckLakeMetadataManager::GetSnapshotAndStatsAndChangesQuery), the newest
// snapshot's counters with the changes_made of every snapshot after its own
// (joined by ','), then the stats of every table joined with their column
// stats, ordered by table. This builds the same result set, column for
// column, from the reads of commit/rows/row_transaction.h, so DuckLake's own parser
// reads it.
//
// The result is a DuckDB object of moraine's engine copy handed to DuckLake's
// (the same release, so the same layout; see native_metadata_manager.h).
//
// Thread-safety: a function of its arguments.
#pragma once

#include <string>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"

namespace moraine::ducklake_adapter {

duckdb::unique_ptr<duckdb::QueryResult> ConflictCheckResult(
    duckdb::ClientContext& context, const commit::SnapshotCounters& head,
    const std::vector<std::string>& changes_after, const std::vector<commit::TableStats>& stats);

}  // namespace moraine::ducklake_adapter
