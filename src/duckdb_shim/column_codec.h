// How one column of a moraine table travels between a DuckDB vector and a
// commit::Cell. The core speaks five cell kinds; everything else (the user
// columns of inlined data tables, of any DuckDB type) crosses as an opaque
// blob the core never interprets, in one of three encodings told apart by
// the first byte:
//   0x01 <type id> <bytes>  a value of a plain fixed-size type (integers,
//                           floats, dates, times, timestamps, intervals,
//                           UUIDs; no type modifiers), its in-memory bytes;
//   0x02 <type id> <bytes>  a plain VARCHAR or BLOB, its bytes;
//   0x64 ...                anything else: DuckDB's binary serialization of
//                           the Value (its first field id, 100), so nested
//                           and modified types round-trip exactly. Every cell
//                           stored before the first two existed is one.
// The type id is DuckDB's LogicalTypeId, whose numbers DuckDB's own storage
// format writes and so keeps across releases. The first two decode with one
// copy into a vector, which is what makes a scan of inlined rows cost what a
// scan of a DuckDB table does.
//
// Thread-safety: ColumnCodec is a value type; the functions are functions of
// their arguments (the vector written is the caller's).
#pragma once

#include <string>
#include <string_view>

#include "commit/rows/row_transaction.h"
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

// Writes the opaque cell `bytes` into row `row` of the flat vector `out` of
// type `type`, cast when the cell holds another type. Throws
// duckdb::InvalidInputException for bytes that are no cell.
void WriteOpaqueCell(std::string_view bytes, const duckdb::LogicalType& type, duckdb::Vector& out,
                     duckdb::idx_t row);

}  // namespace moraine::duckdb_shim
