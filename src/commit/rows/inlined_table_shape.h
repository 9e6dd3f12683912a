// The stored shapes of inlined data tables (records.proto,
// InlinedTableShapeRecord) and how a schema change writes one.
//
// A shape has one of three forms:
// - plain: the columns as DuckLake's CREATE TABLE declared them;
// - keyed: every column with the key its table orders it by,
//   (column_order, column_id) of the top-level ducklake_column;
// - delta: a keyed base shape of the same table (an earlier schema version)
//   and the entries that differ from it, at most one per key.
// DuckLake's SQL declares plain shapes. The verb path declares keyed ones,
// and a later column change of the same table a delta that holds only the
// columns changed since the base, so a column change writes what it touches,
// not the table's width (RFC 0012). A delta of more than kMaxShapeDeltaEntries
// entries is written keyed instead: a read resolves at most two values.
//
// Thread-safety: pure functions of their arguments, except that
// StageChangedShape and StageDroppedShape edit the view they are given
// (which its owner serializes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "commit/rows/row_transaction.h"
#include "commit/rows/shape_change.h"
#include "commit/rows/staged_view.h"

namespace moraine::commit::inlined {

inline constexpr size_t kMaxShapeDeltaEntries = 64;

// The framed shape of `name` (a data table) in keyed form.
std::string EncodeKeyedShape(const catalog::InlinedTableName& name,
                             const std::vector<KeyedColumn>& columns);

// The user columns of a shape value in order, as name and type, its base read
// by `read_base` (a delta's base). Throws store::CorruptionError for a delta
// whose base is missing or not keyed.
using ShapeReader = std::function<std::optional<std::string>(const std::string& key)>;
std::vector<ColumnSpec> ShapeColumns(const catalog::InlinedTableName& name, std::string_view value,
                                     const ShapeReader& read_base);

// The number of user columns of a shape value (no base read).
size_t ShapeColumnCount(std::string_view value);

// The base schema version a delta shape value names, nullopt for the other
// forms; and whether a value is in keyed form (a delta's valid base).
std::optional<int64_t> ShapeBase(std::string_view value);
bool IsKeyedShape(std::string_view value);

// Stages the shape of `name`, a new data table of a table whose columns
// `changes` changed (a schema change at `name.schema_version`): as a delta
// over the table's newest shape when that shape is keyed or a delta and is
// the table's shape at its last schema version (ducklake_schema_versions) —
// else nothing tells what changed since — and the delta stays within
// kMaxShapeDeltaEntries; otherwise keyed, with the columns `all_columns`
// gives. Returns false, staging nothing, when `all_columns` gives nullopt
// (DuckLake would not inline the table). Call it before staging this change's
// ducklake_schema_versions row. Throws store::ConstraintError if the table
// exists.
bool StageChangedShape(StagedView& view, const catalog::InlinedTableName& name,
                       const std::vector<ShapeChange>& changes,
                       const std::function<std::optional<std::vector<KeyedColumn>>()>& all_columns);

// Before inlined table `name` is dropped: if it is a data table, stages every
// later shape of its table that is a delta over it in keyed form, so that
// none is left without its base.
void StageDroppedShape(StagedView& view, const catalog::InlinedTableName& name);

}  // namespace moraine::commit::inlined
