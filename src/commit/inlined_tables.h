// DuckLake's per-table inlined families, as stored rows:
//   ducklake_inlined_data_<table>_<schema_version>(row_id, begin_snapshot,
//     end_snapshot, <user columns>) -> InlinedRowRecord keyed (table, version, row_id,
//     begin_snapshot),
//     its shape -> InlinedTableShapeRecord keyed (table, version);
//   ducklake_inlined_delete_<table>(file_id, row_id, begin_snapshot)
//     -> InlinedDeleteRecord keyed (table, file_id, row_id), its existence ->
//     InlinedDeleteTableRecord keyed (table).
// User cells are opaque: the DuckDB shim encodes them, moraine keeps them.
#pragma once

#include <optional>
#include <string>

#include "catalog/ducklake_tables.h"
#include "catalog/row.h"
#include "commit/row_transaction.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"

namespace moraine::commit::inlined {

// The key of the record that says the table exists.
store::Key ExistenceKey(const catalog::InlinedTableName& name);
// The range holding the table's rows.
store::KeyRange RowRange(const catalog::InlinedTableName& name);
// The key of a row of the table; throws store::InvalidArgumentError for a
// NULL or negative identity.
store::Key RowKey(const catalog::InlinedTableName& name, const catalog::Row& row);

// The table's declaration from its stored existence record.
TableSpec SpecOf(const catalog::InlinedTableName& name, std::string_view existence_value);
// The existence record for a CREATE TABLE of `spec`; throws
// store::InvalidArgumentError unless the spec starts with the family's columns.
std::string ExistenceValue(const catalog::InlinedTableName& name, const TableSpec& spec);

// Rows to values and back. `columns` is the table's column count.
std::string RowValue(const catalog::InlinedTableName& name, const catalog::Row& row,
                     size_t columns);
catalog::Row ReadRow(const catalog::InlinedTableName& name, std::string_view value);
// The row of a data table's `value` with only its leading columns (row_id,
// begin_snapshot, end_snapshot) read and its cells NULL, which are counted
// but not decoded: for scans that read no user column, such as counts of the
// live rows. Throws store::CorruptionError where ReadRow would for a value
// that does not parse.
catalog::Row ReadLeadingColumns(const catalog::InlinedTableName& name, std::string_view value);

}  // namespace moraine::commit::inlined
