// The inlined data table DuckLake declares for a table at one schema version
// (DuckLakeMetadataManager::GetInlinedTableQuery): row_id, begin_snapshot,
// end_snapshot, then the table's top-level columns typed as DuckDB declares
// them (DuckLake's type names mapped back: int32 -> INTEGER, a struct ->
// STRUCT(name TYPE, ...), a list -> TYPE[], a map -> MAP(K, V)).
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "catalog/catalog_state.h"
#include "commit/rows/row_transaction.h"

namespace moraine::commit {

// The spec of `table`'s inlined data table at `schema_version`, or nullopt
// when DuckLake would not inline the table (CanInlineColumns: a column named
// like a system column, a geometry, or a type DuckLake cannot parse).
std::optional<TableSpec> InlinedDataTableSpec(const catalog::TableState& table,
                                              int64_t schema_version);

}  // namespace moraine::commit
