// The reverts a user asks for (catalog_revert.h), each one commit of its own
// on the store, outside any DuckLake transaction: DuckLake sees an ordinary
// new snapshot at its next read. Like any commit a revert races on the head;
// a race it lost (a writer landed meanwhile) is planned again on the new head,
// so what lands is always exactly the catalog asked for.
//
// Thread-safety: functions that share only `store` (thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "commit/lake/commit_store.h"
#include "commit/revert/catalog_revert.h"

namespace moraine::commit::revert {

// What a revert needs of the lake's files, which the caller can reach and
// the catalog cannot.
struct LakeFiles {
  // Which of `paths` no longer exist (a file a revert would bring back that
  // cleanup or a hand deleted).
  std::function<std::vector<std::string>(const std::vector<std::string>& paths)> missing;
  // catalog_revert.h; may be empty.
  PartialFileReader partial_files;
};

// Commits one snapshot whose catalog equals snapshot `as_of`'s (moraine_rollback).
// Returns what it staged; nothing is committed when the head already equals
// `as_of` (outcome.staged false). Throws, writing nothing:
//  - store::NotFoundError for a snapshot the lake does not hold, or when a
//    file it would bring back is missing (the message names them);
//  - store::ConstraintError when a file holds rows of `as_of` merged with
//    later ones (a compaction, a flush or a delete after it) and
//    `files.partial_files` cannot read it (the message names it);
//  - store::InvalidArgumentError for a store without a catalog;
//  - store::ConflictError if it lost its race to other commits every time.
RevertOutcome RollBackLake(const CommitStore& store, int64_t as_of, const LakeFiles& files);

// Commits one snapshot in which the dropped table `schema`.`table` is back as
// it was just before its (latest) drop, with its ids, columns, files and
// inlined rows (moraine_undrop). Throws, writing nothing:
//  - store::NotFoundError for a schema that does not exist at the head, no
//    dropped table of that name whose versions are still held (expiry
//    removes a dropped table's rows), an expired snapshot before the drop,
//    or a missing file (named);
//  - store::ConstraintError when a table or view of that name exists;
//  - store::ConflictError as RollBackLake.
RevertOutcome UndropTable(const CommitStore& store, std::string_view schema, std::string_view table,
                          const LakeFiles& files);

}  // namespace moraine::commit::revert
