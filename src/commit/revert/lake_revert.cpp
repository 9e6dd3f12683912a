#include "commit/revert/lake_revert.h"

#include <optional>
#include <set>

#include "commit/lake/conflict_backoff.h"
#include "commit/rows/row_transaction.h"
#include "commit/rows/table_rows.h"
#include "store/error.h"

namespace moraine::commit::revert {
namespace {

// How often a revert plans again after losing its race (as a tag move).
constexpr int kAttempts = 64;

std::string Quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// Plans with `plan` in a fresh row transaction, refuses files that are gone,
// and commits; again on the new head after a lost race.
template <class Plan>
RevertOutcome CommitRevert(const CommitStore& store, const LakeFiles& files, const Plan& plan) {
  for (int attempt = 1;; ++attempt) {
    auto rows = BeginRowTransaction(store);
    const RevertOutcome outcome = plan(*rows);
    if (!outcome.staged) {
      rows->Rollback();
      return outcome;
    }
    if (const auto missing = files.missing(outcome.revived_file_paths); !missing.empty()) {
      rows->Rollback();
      std::string names;
      for (const auto& path : missing) names += (names.empty() ? "" : ", ") + path;
      throw store::NotFoundError("the files " + names +
                                 " that it would bring back no longer exist (cleaned up, or "
                                 "deleted by hand); nothing was reverted");
    }
    try {
      rows->Commit();
      return outcome;
    } catch (const store::ConflictError&) {
      if (attempt == kAttempts) throw;
      BackOffAfterConflict(attempt);
    }
  }
}

struct DroppedTable {
  int64_t table_id = 0;
  int64_t dropped_at = 0;  // the snapshot its last version ended at
};

// The latest drop of table `table` in the schema `schema` names at the head.
DroppedTable FindDropped(RowTransaction& rows, std::string_view schema, std::string_view table) {
  const auto head = rows.LatestSnapshot();
  if (!head) {
    throw store::InvalidArgumentError(
        "the store holds no DuckLake catalog yet; attach it with DuckLake first");
  }
  std::optional<int64_t> schema_id;
  TableRows(rows, "ducklake_schema", {"schema_id", "schema_name"})
      .ForEachLive(head->snapshot_id, true, [&](const std::vector<size_t>& at, const Row& row) {
        if (std::get<std::string>(row[at[1]]) == schema) schema_id = std::get<int64_t>(row[at[0]]);
      });
  if (!schema_id) {
    throw store::NotFoundError("no schema " + Quoted(schema) +
                               " exists in this lake, so no table of it can be undropped");
  }
  for (const auto& [name, id_column] :
       {std::pair{"ducklake_table", "table_name"}, std::pair{"ducklake_view", "view_name"}}) {
    TableRows(rows, name, {"schema_id", id_column})
        .ForEachLive(head->snapshot_id, true, [&](const std::vector<size_t>& at, const Row& row) {
          if (std::get<int64_t>(row[at[0]]) == *schema_id &&
              std::get<std::string>(row[at[1]]) == table) {
            throw store::ConstraintError(
                "a table or view " + Quoted(std::string(schema) + "." + std::string(table)) +
                " exists; drop or rename it first to undrop the one dropped before");
          }
        });
  }
  std::optional<DroppedTable> dropped;
  std::set<int64_t> live;
  TableRows(rows, "ducklake_table", {"table_id", "schema_id", "table_name", "end_snapshot"})
      .ForEachFrom(std::nullopt, [&](const std::vector<size_t>& at, const Row& row) {
        const int64_t id = std::get<int64_t>(row[at[0]]);
        const auto* end = std::get_if<int64_t>(&row[at[3]]);
        if (!end) {
          live.insert(id);
          return;
        }
        if (std::get<int64_t>(row[at[1]]) != *schema_id ||
            std::get<std::string>(row[at[2]]) != table) {
          return;
        }
        if (!dropped || *end > dropped->dropped_at) dropped = DroppedTable{id, *end};
      });
  // A version that ended by a rename is no drop: the table lives on.
  if (!dropped || live.count(dropped->table_id)) {
    throw store::NotFoundError("no dropped table " +
                               Quoted(std::string(schema) + "." + std::string(table)) +
                               " is held by this lake (never dropped, renamed, or its versions "
                               "were expired)");
  }
  return *dropped;
}

}  // namespace

RevertOutcome RollBackLake(const CommitStore& store, int64_t as_of, const LakeFiles& files) {
  return CommitRevert(store, files, [&](RowTransaction& rows) {
    RevertRequest request;
    request.as_of = as_of;
    request.commit_message = "moraine_rollback to snapshot " + std::to_string(as_of);
    request.partial_files = files.partial_files;
    return StageRevert(rows, request);
  });
}

RevertOutcome UndropTable(const CommitStore& store, std::string_view schema, std::string_view table,
                          const LakeFiles& files) {
  return CommitRevert(store, files, [&](RowTransaction& rows) {
    const DroppedTable dropped = FindDropped(rows, schema, table);
    RevertRequest request;
    request.as_of = dropped.dropped_at - 1;
    // The table as it was then is whole only while that snapshot is held:
    // an expiry of it removes the files only it saw.
    if (!rows.SnapshotAt(request.as_of)) {
      throw store::NotFoundError(
          "snapshot " + std::to_string(request.as_of) + ", the last before " +
          Quoted(std::string(schema) + "." + std::string(table)) +
          " was dropped, was expired, and with it what only it read; roll back to an earlier "
          "snapshot with moraine_rollback instead");
    }
    request.table_id = dropped.table_id;
    request.commit_message = "moraine_undrop of " + std::string(schema) + "." + std::string(table) +
                             " as of snapshot " + std::to_string(request.as_of);
    return StageRevert(rows, request);
  });
}

}  // namespace moraine::commit::revert
