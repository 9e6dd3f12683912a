// DuckLake's per-table inlined families, as stored rows:
//   ducklake_inlined_data_<table>_<schema_version>(row_id, begin_snapshot,
//     end_snapshot, <user columns>) -> the rows of one begin_snapshot in one
//     InlinedRowBatchRecord keyed (table, version, begin_snapshot)
//     (commit/rows/inlined_row_batch.h),
//     its shape -> InlinedTableShapeRecord keyed (table, version)
//     (commit/rows/inlined_table_shape.h);
//   ducklake_inlined_delete_<table>(file_id, row_id, begin_snapshot)
//     -> InlinedDeleteRecord keyed (table, file_id, row_id), its existence ->
//     InlinedDeleteTableRecord keyed (table).
// User cells are opaque: the DuckDB shim encodes them, moraine keeps them.
#pragma once

#include <optional>
#include <string>

#include "catalog/ducklake_tables.h"
#include "catalog/row.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/inlined_table_shape.h"
#include "commit/rows/row_transaction.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"

namespace moraine::commit::inlined {

// The key of the record that says the table exists.
store::Key ExistenceKey(const catalog::InlinedTableName& name);
// The range holding the table's rows (a data table's batches, a delete
// table's rows), in key order.
store::KeyRange RowRange(const catalog::InlinedTableName& name);
// The key of the record holding a row of the table (a data row's batch);
// throws store::InvalidArgumentError for a NULL or negative identity.
store::Key RowKey(const catalog::InlinedTableName& name, const catalog::Row& row);
// The key of data table `name`'s batch of the rows that began at `begin_snapshot`.
store::Key BatchKey(const catalog::InlinedTableName& name, int64_t begin_snapshot);
// The begin_snapshot of the batch stored under `key`, a key of RowRange of
// a data table: its last component, read in place (a scan reads one per
// batch). Throws what store::Key::Decode throws for a key of another shape.
int64_t BatchBeginSnapshot(std::string_view key);

// The table's declaration from its stored existence record, a data table's
// delta shape resolved over the base `read_base` reads.
TableSpec SpecOf(const catalog::InlinedTableName& name, std::string_view existence_value,
                 const ShapeReader& read_base);
// A data table's user column count (the columns after row_id,
// begin_snapshot and end_snapshot), from its stored existence record alone.
size_t UserColumnCount(const catalog::InlinedTableName& name, std::string_view existence_value);
// The existence record for a CREATE TABLE of `spec` (a data table's shape in
// plain form); throws
// store::InvalidArgumentError unless the spec starts with the family's columns.
std::string ExistenceValue(const catalog::InlinedTableName& name, const TableSpec& spec);

// A delete table's rows to values and back (a data table's rows live in
// batches: commit/rows/inlined_row_batch.h).
std::string DeleteRowValue(const catalog::Row& row);
catalog::Row ReadDeleteRow(std::string_view value);

// A data row as its batch keeps it: `row` is (row_id, begin_snapshot,
// end_snapshot, user cells...), the cells opaque or NULL. Throws
// store::InvalidArgumentError for a row of another width, a negative
// end_snapshot or a cell that is not opaque.
InlinedRowBatch::Row BatchRowOf(const catalog::InlinedTableName& name, const catalog::Row& row,
                                size_t user_columns);

}  // namespace moraine::commit::inlined
