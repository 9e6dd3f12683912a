// A revert (issue #34): one new DuckLake snapshot whose catalog equals an
// earlier snapshot's, staged on a RowTransaction like any commit. It is how
// moraine_rollback brings a whole lake back to snapshot n and how
// moraine_undrop brings back one dropped table as it was just before the drop.
//
// Every versioned row of the scope (schemas, tables, views, columns, tags and
// comments, partitions, sort keys, macros, data and delete files, inlined rows
// and inlined deletions) that is live at the head but was not at n is ended at
// the new snapshot; every one that was live at n but is not at the head comes
// back, as a new version beginning at the new snapshot. History is kept: time
// travel to the snapshots in between reads what it read before. What comes
// back keeps its ids (revert_mark.h says why), but a file: a file brought back
// (or one whose deletions changed after n) gets a new id for the same path, its
// delete files and inlined deletions as of n follow it, and its column stats and
// partition values are copied to the new id. A table whose columns change gets
// a new schema version and, if it inlines rows, a new inlined table in the
// columns it had at n, as a DuckLake ALTER would. A file that holds rows of
// n and of later snapshots (PartialFileReader) comes back with the later
// rows, or the later deletions, left out as inlined deletions. Row ids and
// next_row_id never go back.
//
// Thread-safety: uses the RowTransaction it is given, which the caller
// serializes (as every RowTransaction use).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "commit/rows/row_transaction.h"

namespace moraine::commit::revert {

// What a revert reads of a Parquet file that holds rows of several
// snapshots: DuckLake writes each row's snapshot into it
// (_ducklake_internal_snapshot_id; the file's partial_max is the newest) when
// a compaction or a flush of inlined rows merges rows, or a delete file adds
// to an earlier one's deletions, and reads it at an earlier snapshot through
// that column, which no newer snapshot applies. The catalog cannot read
// Parquet; its caller can. Both give positions in the file, ascending.
struct PartialFileReader {
  // The rows of data file `path` written for snapshots after `snapshot`.
  std::function<std::vector<int64_t>(const std::string& path, int64_t snapshot)> rows_after;
  // The rows delete file `path` deleted at or before `snapshot`.
  std::function<std::vector<int64_t>(const std::string& path, int64_t snapshot)> deleted_up_to;
};

struct RevertRequest {
  int64_t as_of = 0;                // the snapshot whose catalog the new one equals
  std::optional<int64_t> table_id;  // only this table's rows (an undrop)
  std::string commit_message;       // the new snapshot's, as DuckLake's set_commit_message
  // Reads a file live at `as_of` that holds rows of later snapshots too;
  // without it (or for an encrypted one) such a file refuses the revert.
  PartialFileReader partial_files;
};

struct RevertOutcome {
  // The snapshot staged; the head when nothing differs from `as_of` (and
  // nothing was staged).
  int64_t snapshot_id = 0;
  bool staged = false;
  int64_t ended_versions = 0;
  int64_t revived_versions = 0;
  // Where each file brought back lives (data path, schema and table paths
  // joined as DuckLake joins them), for the caller to check it still exists.
  std::vector<std::string> revived_file_paths;
};

// Stages the revert of `request` on `rows` (not committed). Throws
// store::InvalidArgumentError for a store without a catalog,
// store::ConstraintError when a file live at `as_of` holds rows of later
// snapshots too and `partial_files` cannot read it, and
// store::NotFoundError when `as_of` is not a snapshot of the lake (never
// taken, or expired: expiry removes the rows only it saw).
RevertOutcome StageRevert(RowTransaction& rows, const RevertRequest& request);

}  // namespace moraine::commit::revert
