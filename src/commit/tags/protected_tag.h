// A protected tag (issue #34): a name that keeps one DuckLake snapshot, and so
// every file and row that snapshot reads, from ducklake_expire_snapshots and
// the cleanup functions. Tags are moraine's own records in the system
// subspace (sys/protected_tag/<tag_id>), never DuckLake rows, so DuckLake
// neither sees nor copies them.
//
// A tag is never deleted: untagging ends it (`removed_micros` set), so the
// store keeps when each tag protected what. Tag ids are never reused; at most
// one unended tag holds a name.
//
// Thread-safety: a value type and pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/key_range.h"

namespace moraine::commit::tags {

struct ProtectedTag {
  uint64_t tag_id = 0;
  std::string name;
  int64_t snapshot_id = 0;     // the snapshot it protects
  int64_t created_micros = 0;  // wall clock, microseconds since the epoch, UTC
  std::optional<std::string> author;
  int64_t created_at_head = 0;  // the lake's newest snapshot when it was made
  std::optional<int64_t> removed_micros;
  std::optional<int64_t> removed_at_head;
  // A backup's hold: files scheduled for deletion by a commit after this
  // batch are kept from cleanup while the tag is unended.
  std::optional<uint64_t> holds_files_after_batch;

  bool ended() const { return removed_micros.has_value(); }
  // This tag ended now, with the lake's newest snapshot `head`.
  ProtectedTag EndedAt(int64_t head) const;
  bool operator==(const ProtectedTag&) const = default;
};

// The encoded key of tag `tag_id`, and the range that holds every tag.
std::string ProtectedTagKey(uint64_t tag_id);
store::KeyRange ProtectedTagRange();

// A framed record of `tag`, and the tag a framed record holds. Decode throws
// store::CorruptionError for a value that is no tag record.
std::string EncodeProtectedTag(const ProtectedTag& tag);
ProtectedTag DecodeProtectedTag(std::string_view value);

// Why `name` cannot name a tag, or nullopt if it can: a tag name is 1 to 128
// bytes of printable text (no control characters), so it prints and quotes
// everywhere a user reads it.
std::optional<std::string> InvalidTagNameReason(std::string_view name);

}  // namespace moraine::commit::tags
