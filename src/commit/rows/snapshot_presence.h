// Which of its two rows a stored snapshot record holds, read without parsing
// the record. ducklake_snapshot and ducklake_snapshot_changes share one record
// per snapshot id (row_mapping.h); a scan of either that needs only
// snapshot_id (DuckLake's MAX(snapshot_id) probe, once per statement) would
// otherwise parse every snapshot of the lake's history to learn one flag.
#pragma once

#include <string_view>

namespace moraine::commit {

// Whether the framed SnapshotRecord `value` holds its ducklake_snapshot row
// (`changes_row` false) or its ducklake_snapshot_changes row (true). The frame
// is checked as in a full read; a malformed payload throws CorruptionError.
bool SnapshotRecordHoldsRow(std::string_view value, bool changes_row);

}  // namespace moraine::commit
