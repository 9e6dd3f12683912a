// Store format 2 -> 3 (RFC 0015 migration step): an inlined data table's rows
// move from a record per row (InlinedRowRecord keyed (table, version, row_id,
// begin_snapshot)) into one batch per begin snapshot (commit/rows/inlined_row_batch.h),
// so a scan reads one record per commit. The rows ducklake_inlined_data_*
// serves are unchanged, cell for cell; a batch keeps its rows in row id order,
// the order the old keys held them in.
//
// Thread-safety: a function of its arguments: `snapshot` may be shared
// (KvSnapshot reads may run concurrently); `batch` must be the caller's alone.
#pragma once

#include <cstddef>

#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::commit {

struct InlinedRowsRepackCounts {
  size_t rows = 0;     // rows moved (= format-2 keys deleted)
  size_t batches = 0;  // format-3 batches written
};

// Stages into `batch` the deletion of every format-2 inlined row `snapshot`
// holds and the batches holding the same rows. Throws store::CorruptionError
// for a row that does not decode or whose table's shape is missing.
InlinedRowsRepackCounts RepackInlinedRows(const store::KvSnapshot& snapshot,
                                          store::WriteBatch* batch);

}  // namespace moraine::commit
