// The filter DuckLake's ducklake_expire_snapshots hands GetAllSnapshots to
// choose the snapshots it expires (src/functions/ducklake_expire_snapshots.cpp,
// the same text in every known build), read so that protected tags
// (commit/tags/protected_tag.h) are kept:
//   - `versions => [...]`: "<prefix>snapshot_id IN (<ids>)", refused when it
//     names a tagged snapshot;
//   - `older_than`, or CHECKPOINT's expiry by the expire_older_than option:
//     "<prefix>snapshot_time < '<time>'", which passes over tagged
//     snapshots once they are excluded.
// <prefix> keeps the newest snapshot. Any other filter (snapshots() passes
// none) is not an expiry's and is left as it is; a build whose expiry text
// differed would be refused whole by the catalog's own guard instead
// (RowTransaction::Delete), never expire a tagged snapshot.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moraine::ducklake_adapter {

struct ExpiryFilter {
  enum class Kind { kVersions, kOlderThan, kOther };
  Kind kind = Kind::kOther;
  std::vector<int64_t> versions;  // kVersions: the ids named, in order
};

ExpiryFilter ReadExpiryFilter(std::string_view filter);

// `filter` (an older_than expiry's) narrowed to leave out `snapshots`.
std::string ExcludingSnapshots(std::string_view filter, const std::vector<int64_t>& snapshots);

}  // namespace moraine::ducklake_adapter
