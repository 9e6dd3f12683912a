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
#include <vector>

#include "catalog/catalog_state.h"
#include "commit/rows/row_transaction.h"
#include "commit/rows/shape_change.h"

namespace moraine::commit {

// The spec of `table`'s inlined data table at `schema_version`, or nullopt
// when DuckLake would not inline the table (CanInlineColumns: a column named
// like a system column, a geometry, or a type DuckLake cannot parse).
std::optional<TableSpec> InlinedDataTableSpec(const catalog::TableState& table,
                                              int64_t schema_version);

// The same table's user columns with their keys, or nullopt as above.
std::optional<std::vector<inlined::KeyedColumn>> InlinedDataColumns(
    const catalog::TableState& table);

// Top-level `column` of `table` as its inlined data table declares it, or
// nullopt when DuckLake would not inline a table holding it.
std::optional<inlined::KeyedColumn> InlinedDataColumn(const catalog::TableState& table,
                                                      const catalog::ColumnRecord& column);

}  // namespace moraine::commit
