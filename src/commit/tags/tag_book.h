// The protected tags of a lake (protected_tag.h) as a user moves them:
// making one, ending one, reading them. Each move is one small commit of its
// own on the store, outside any DuckLake transaction; it moves no DuckLake
// snapshot (DuckLake sees nothing), but it moves the store's head, so it is
// ordered against every DuckLake commit: a tag and an expiry that race
// cannot both land on what the other did not see.
//
// Thread-safety: functions that share only `store` (thread-safe). Concurrent
// moves race on the head like any commit; each retries a lost race on the
// new head, where it checks its preconditions again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commit/lake/commit_store.h"
#include "commit/tags/protected_tag.h"

namespace moraine::commit::tags {

struct TagRequest {
  std::string name;
  std::optional<int64_t> snapshot_id;  // nullopt: the lake's newest snapshot
  std::optional<std::string> author;
  // A backup's hold (protected_tag.h): keep the files scheduled for deletion
  // after the batch the tag's own commit builds on.
  bool hold_files = false;
};

// Makes the tag `request.name` on its snapshot and returns it. Throws:
//  - store::InvalidArgumentError for a name InvalidTagNameReason refuses, or
//    a store that holds no DuckLake catalog yet;
//  - store::ConstraintError if an unended tag already holds the name;
//  - store::NotFoundError for a snapshot the lake does not hold (never
//    taken, or expired);
//  - store::ConflictError if it lost its race to other commits every time
//    it tried.
// Nothing is written when it throws.
ProtectedTag CreateTag(const CommitStore& store, const TagRequest& request);

// Moves the unended tag `name` to `snapshot` in one commit (the tag ended,
// a new one of that name made, keeping its author and hold) and returns the
// new tag. Throws store::NotFoundError for an unknown tag or a snapshot the
// lake does not hold, store::ConflictError as CreateTag.
ProtectedTag MoveTag(const CommitStore& store, std::string_view name, int64_t snapshot);

// Ends the unended tag `name` and returns it as ended. Throws
// store::NotFoundError if no unended tag holds the name (and writes nothing),
// store::ConflictError as CreateTag.
ProtectedTag RemoveTag(const CommitStore& store, std::string_view name);

// The tags of the lake at its head: unended ones, or every one ever made
// with `include_ended`; in tag id order.
std::vector<ProtectedTag> ListTags(const CommitStore& store, bool include_ended = false);

// The snapshot the unended tag `name` holds. Throws store::NotFoundError if
// no unended tag holds the name.
int64_t TaggedSnapshot(const CommitStore& store, std::string_view name);

}  // namespace moraine::commit::tags
