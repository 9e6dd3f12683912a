#include "commit/rows/storage/snapshot_row_storage.h"

#include <string>

#include "commit/rows/snapshot_presence.h"

namespace moraine::commit {

bool SnapshotRowStorage::HoldsRow(std::string_view value) const {
  return SnapshotRecordHoldsRow(value, /*changes_row=*/false);
}

void SnapshotRowStorage::ThrowPresent(int64_t snapshot_id) const {
  throw store::ConflictError("commit conflict: snapshot " + std::to_string(snapshot_id) +
                             " already exists");
}

}  // namespace moraine::commit
