#include "commit/rows/storage/changes_row_storage.h"

#include "commit/rows/snapshot_presence.h"

namespace moraine::commit {

bool ChangesRowStorage::HoldsRow(std::string_view value) const {
  return SnapshotRecordHoldsRow(value, /*changes_row=*/true);
}

void ChangesRowStorage::ThrowPresent(int64_t /*snapshot_id*/) const {
  throw DuplicateRow(mapping_.table().name);
}

}  // namespace moraine::commit
