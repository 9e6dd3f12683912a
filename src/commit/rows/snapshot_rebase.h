// Moving a DuckLake commit that lost its race onto the head that beat it
// (RFC 0004, "Rebased commits"), instead of failing it so that DuckLake
// rolls back, re-checks and re-stages the whole commit.
//
// DuckLake itself, retrying a commit that lost to commits which changed only
// the data of other tables, finds no conflict and re-stages exactly the rows
// it staged before but for the new snapshot's counters: its id is the new
// head's plus one, and its next_file_id the new head's plus what the commit
// allocated (every data commit allocates at least one: DuckLake advances
// next_file_id to mark a data change, which keys its stats cache). That holds
// only when nothing the commit's rows were computed from has moved:
//   - the commit changes inlined data only: its ducklake_snapshot_changes
//     text names only inserted_into_table, deleted_from_table, inlined_insert
//     and inlined_delete of tables given by id, and every other row it writes
//     is a stats row or an inlined row of one of those tables. A commit that
//     writes a data or delete file is not rebased: its rows name the file ids
//     it allocated, which the commits that beat it may have taken;
//   - every commit between its base and the new head is a data-only commit,
//     one snapshot per batch, and kept the schema version and
//     next_catalog_id of the base; it changed other tables, or it inserted
//     (inlined or in files) into a table the commit only inserted inlined
//     rows into: DuckLake allows concurrent inserts into one table;
//   - every row the commit updates or deletes is still, at the new head,
//     exactly the row it read (checked by the replay, row by row), except
//     the stats rows of a table both inserted into.
// Then the commit's writes are replayed on the new head with every snapshot
// cell that held its snapshot id moved to the new one, and its snapshot's
// next_file_id moved by as much as the head's moved past the base's. Into a
// table both inserted into, its inlined rows take row ids after the head's
// (moved by as much as the head's next_row_id moved past the base's), and
// its stats rows are re-staged on the head's as DuckLake's retry would
// re-stage them: the counters moved by what the commit added, and each
// column's stats merged with the head's (StatsOnHead).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_version.h"
#include "catalog/row.h"
#include "commit/rows/row_transaction.h"

namespace moraine::commit {

// A row write as a transaction staged it, kept so that it can be replayed
// on a newer head. `before`: the row an update or delete found (empty for an
// insert); `after`: the row an insert or update wrote (empty for a delete).
struct RowWrite {
  enum class Kind { kInsert, kUpdate, kDelete };
  Kind kind;
  std::string table;
  Row before;
  Row after;
  bool operator==(const RowWrite&) const = default;
};

// A transaction's writes, seen as one data-only DuckLake commit.
struct DataCommit {
  int64_t snapshot_id = 0;   // the snapshot the commit inserts
  std::set<int64_t> tables;  // the tables whose data it changes
  // Of `tables`, those it only inserted inlined rows into.
  std::set<int64_t> inserted_only = {};
};

// How a rebase moves a commit's rows: its snapshot id from `from` to `to`,
// its snapshot's next_file_id by `file_ids`, and the row ids of its inlined
// rows of a table in `row_ids` by as much as that maps the table to.
struct SnapshotMove {
  int64_t from = 0;
  int64_t to = 0;
  int64_t file_ids = 0;
  std::map<int64_t, int64_t> row_ids = {};
};

// The tables a ducklake_snapshot_changes text names, with the kinds of
// change (inlined_insert, ...) of each, if it names only data changes of
// tables given by id; nullopt for any other change or text.
std::optional<std::map<int64_t, std::set<std::string>>> DataChangesByTable(
    std::string_view changes_made);

// `writes` as one data-only commit staged on `base` (see the file comment),
// or nullopt when they are anything else.
std::optional<DataCommit> DataCommitOf(const std::vector<RowWrite>& writes,
                                       const SnapshotCounters& base, catalog::CatalogVersion shape);

// Whether `commit`, staged on `base` (whose head record counted
// `base_batches` batches), may be rebased onto `head` (`head_batches`),
// given the changes_made texts of every snapshot after the base
// (RowTransaction::ChangesAfter): if so, the tables both the commit and the
// head's commits inserted into (often none); nullopt if not.
std::optional<std::set<int64_t>> HeadAdmitsRebase(
    const DataCommit& commit, const SnapshotCounters& base, uint64_t base_batches,
    const SnapshotCounters& head, uint64_t head_batches,
    const std::vector<std::string>& changes_after_base);

// How `commit`, staged on `base`, moves onto `head`.
SnapshotMove MoveOnto(const DataCommit& commit, const SnapshotCounters& base,
                      const SnapshotCounters& head);

// `row` of `table` moved by `move`: each snapshot cell (snapshot_id,
// begin_snapshot, end_snapshot) that holds move.from set to move.to, the
// next_file_id of the moved snapshot's own row shifted, and the row id of an
// inlined row of a table in move.row_ids shifted.
Row WithSnapshotMoved(std::string_view table, Row row, const SnapshotMove& move,
                      catalog::CatalogVersion shape);

// Whether `table` is ducklake_table_stats or ducklake_table_column_stats.
bool IsTableStats(std::string_view table);

// The BIGINT cell `column` of `row` of the fixed table `table`, if it holds one.
std::optional<int64_t> IntCellNamed(std::string_view table, const Row& row, std::string_view column,
                                    catalog::CatalogVersion shape);

// A stats row of `table` (IsTableStats) that a commit staged as `after` on
// `before`, re-staged on `head`, the same row at the head it lands on, as
// DuckLake's retry would write it: record_count, next_row_id and
// file_size_bytes are the head's plus what the commit added; contains_null
// and contains_nan the head's or the commit's; min_value and max_value the
// smaller and larger of the head's and the commit's, compared as
// `column_type` (a DuckLake type name; the column the row describes).
// nullopt when that cannot be told here: a type this cannot compare, a
// NULL on one side only, extra_stats or any other column that differs.
std::optional<Row> StatsOnHead(std::string_view table, const Row& before, const Row& after,
                               const Row& head, std::string_view column_type,
                               catalog::CatalogVersion shape);

// How two stats values of a column of DuckLake type `column_type` order
// (negative, zero, positive), or nullopt for a type or a text this does not
// compare: integers, floating point, varchar, boolean and date.
std::optional<int> CompareStatValues(std::string_view column_type, std::string_view a,
                                     std::string_view b);

}  // namespace moraine::commit
