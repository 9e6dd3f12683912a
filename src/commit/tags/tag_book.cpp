#include "commit/tags/tag_book.h"

#include <algorithm>

#include "commit/lake/conflict_backoff.h"
#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "util/wall_clock.h"

namespace moraine::commit::tags {
namespace {

// How often a move retries a race it lost to other commits. Each attempt is
// a read of the tags and the head and one small batch: losing this many times
// in a row means the lake is committing faster than a tag can be read.
constexpr int kAttempts = 64;

const ProtectedTag* FindUnended(const std::vector<ProtectedTag>& tags, std::string_view name) {
  for (const ProtectedTag& tag : tags) {
    if (!tag.ended() && tag.name == name) return &tag;
  }
  return nullptr;
}

std::string Quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// Runs `move` in a fresh row transaction until it lands, retrying a lost race
// on the new head; `move` stages its write and returns the tag it wrote.
template <class Move>
ProtectedTag CommitMove(const CommitStore& store, const Move& move) {
  for (int attempt = 1;; ++attempt) {
    auto rows = BeginRowTransaction(store);
    ProtectedTag written = move(*rows);
    try {
      rows->Commit();
      return written;
    } catch (const store::ConflictError&) {
      if (attempt == kAttempts) throw;
      BackOffAfterConflict(attempt);
    }
  }
}

// The newest snapshot `rows` sees; throws for a store without a catalog.
int64_t HeadSnapshot(RowTransaction& rows) {
  const auto head = rows.LatestSnapshot();
  if (!head) {
    throw store::InvalidArgumentError(
        "the store holds no DuckLake catalog yet; attach it with DuckLake first");
  }
  return head->snapshot_id;
}

}  // namespace

ProtectedTag CreateTag(const CommitStore& store, const TagRequest& request) {
  if (auto reason = InvalidTagNameReason(request.name)) {
    throw store::InvalidArgumentError(*reason);
  }
  return CommitMove(store, [&](RowTransaction& rows) {
    const int64_t head = HeadSnapshot(rows);
    const int64_t snapshot = request.snapshot_id.value_or(head);
    if (!rows.SnapshotAt(snapshot)) {
      throw store::NotFoundError("snapshot " + std::to_string(snapshot) +
                                 " does not exist in this lake (never taken, or expired; the "
                                 "newest is " +
                                 std::to_string(head) + "), so it cannot be tagged");
    }
    const auto tags = rows.ProtectedTags();
    if (const ProtectedTag* held = FindUnended(tags, request.name)) {
      throw store::ConstraintError(
          "the tag " + Quoted(request.name) + " already exists (it protects snapshot " +
          std::to_string(held->snapshot_id) + "); remove it with moraine_untag first to move it");
    }
    ProtectedTag tag;
    tag.tag_id = tags.empty() ? 1 : tags.back().tag_id + 1;
    tag.name = request.name;
    tag.snapshot_id = snapshot;
    tag.created_micros = util::NowMicros();
    tag.author = request.author;
    tag.created_at_head = head;
    if (request.hold_files) tag.holds_files_after_batch = rows.BaseBatchCount();
    rows.StageProtectedTag(tag);
    return tag;
  });
}

ProtectedTag MoveTag(const CommitStore& store, std::string_view name, int64_t snapshot) {
  return CommitMove(store, [&](RowTransaction& rows) {
    const int64_t head = HeadSnapshot(rows);
    const auto tags = rows.ProtectedTags();
    const ProtectedTag* held = FindUnended(tags, name);
    if (!held) throw store::NotFoundError("no tag " + Quoted(name) + " exists in this lake");
    if (!rows.SnapshotAt(snapshot)) {
      throw store::NotFoundError("snapshot " + std::to_string(snapshot) +
                                 " does not exist in this lake, so the tag " + Quoted(name) +
                                 " cannot move to it");
    }
    const ProtectedTag ended = held->EndedAt(head);
    rows.StageProtectedTag(ended);
    ProtectedTag moved = *held;
    moved.tag_id = tags.back().tag_id + 1;
    moved.snapshot_id = snapshot;
    moved.created_micros = *ended.removed_micros;
    moved.created_at_head = head;
    rows.StageProtectedTag(moved);
    return moved;
  });
}

ProtectedTag RemoveTag(const CommitStore& store, std::string_view name) {
  return CommitMove(store, [&](RowTransaction& rows) {
    const int64_t head = HeadSnapshot(rows);
    const auto tags = rows.ProtectedTags();
    const ProtectedTag* held = FindUnended(tags, name);
    if (!held) throw store::NotFoundError("no tag " + Quoted(name) + " exists in this lake");
    const ProtectedTag ended = held->EndedAt(head);
    rows.StageProtectedTag(ended);
    return ended;
  });
}

std::vector<ProtectedTag> ListTags(const CommitStore& store, bool include_ended) {
  auto rows = BeginRowTransaction(store);
  auto tags = rows->ProtectedTags();
  rows->Rollback();
  if (!include_ended) std::erase_if(tags, [](const ProtectedTag& tag) { return tag.ended(); });
  return tags;
}

int64_t TaggedSnapshot(const CommitStore& store, std::string_view name) {
  const auto tags = ListTags(store);
  const ProtectedTag* held = FindUnended(tags, name);
  if (!held) throw store::NotFoundError("no tag " + Quoted(name) + " exists in this lake");
  return held->snapshot_id;
}

}  // namespace moraine::commit::tags
