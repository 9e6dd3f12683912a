// How one column of a moraine table travels between a DuckDB vector and a
// commit::Cell. The core speaks five cell kinds; everything else (the user
// columns of inlined data tables, of any DuckDB type) crosses as an opaque
// blob: DuckDB's own binary serialization of the Value, so nested types
// round-trip exactly and the core never needs to understand them.
#pragma once

#include <string>

#include "commit/row_transaction.h"
#include "duckdb/common/types.hpp"

namespace duckdb {
class Value;
class Vector;
}  // namespace duckdb

namespace moraine::duckdb_shim {

enum class CellKind { kBigint, kBoolean, kVarchar, kUuid, kTimestampTz, kOpaque };

struct ColumnCodec {
  duckdb::LogicalType type;
  CellKind kind = CellKind::kOpaque;
};

// The codec of column `index` of `table_name` whose DuckDB type is `type`.
// User columns of inlined data tables (catalog::IsInlinedUserColumn) are
// always opaque: DuckLake declares them with the user's types, which the core
// stores without interpreting.
ColumnCodec CodecFor(const std::string& table_name, size_t index, const duckdb::LogicalType& type);

// Writes `cell` into row `row` of the flat vector `out`. Cells of an
// unexpected kind (e.g. an int64 in an opaque column) are converted through
// a DuckDB cast rather than rejected.
void WriteCell(const commit::Cell& cell, const ColumnCodec& codec, duckdb::Vector& out,
               duckdb::idx_t row);

// The cell for `value` (already of the column's type). SQL NULL is always
// std::monostate, never an opaque blob.
commit::Cell CellFromValue(const duckdb::Value& value, const ColumnCodec& codec);

}  // namespace moraine::duckdb_shim
