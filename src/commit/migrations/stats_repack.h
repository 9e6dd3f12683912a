// Store format 1 -> 2 (RFC 0015 migration step): column stats move from a
// record per row into one container per data file (file column stats,
// variant stats) or per table (table column stats), so that a commit writes
// a number of keys independent of the table's width. The ducklake_* rows
// those tables serve are unchanged, entry for record, in the same order.
//
// Thread-safety: functions of their arguments: `snapshot` may be shared
// (KvSnapshot reads may run concurrently); `batch` must be the caller's alone.
// FormatOneStatsMappings is an immutable static, built on first use.
#pragma once

#include <cstddef>
#include <vector>

#include "catalog/row_mapping.h"
#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::commit {

struct StatsRepackCounts {
  size_t rows = 0;        // stats rows moved
  size_t old_keys = 0;    // format-1 keys deleted
  size_t containers = 0;  // format-2 containers written
};

// Where store format 1 kept the three stats tables (a record per file or
// table column stats row, a container per file column of variant stats),
// mapped at the newest catalog version.
const std::vector<catalog::RowMapping>& FormatOneStatsMappings();

// Stages into `batch` the deletion of every format-1 stats key `snapshot`
// holds and the format-2 containers holding the same rows. Reads at the
// newest catalog version, so a 1.1 field survives in a store of either
// version. Throws store::CorruptionError for a record that does not decode.
StatsRepackCounts RepackColumnStats(const store::KvSnapshot& snapshot, store::WriteBatch* batch);

}  // namespace moraine::commit
