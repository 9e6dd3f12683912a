#pragma once

// The DuckDB types and values of a store tool's table (tools/tool_table.h),
// one mapping for the SQL table functions and the host's printer alike.

#include "duckdb/common/types.hpp"
#include "duckdb/common/types/value.hpp"
#include "tools/tool_table.h"

namespace moraine::duckdb_shim {

duckdb::LogicalType ToolColumnType(tools::ToolType type);

// The cell as a DuckDB value of its column's type (NULL for an empty cell).
duckdb::Value ToolCellValue(const tools::ToolCell& cell, tools::ToolType type);

}  // namespace moraine::duckdb_shim
