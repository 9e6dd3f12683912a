// The ducklake_snapshot_changes half of a merged snapshot record.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include "commit/rows/storage/snapshot_half_storage.h"

namespace moraine::commit {

class ChangesRowStorage final : public SnapshotHalfStorage {
 public:
  using SnapshotHalfStorage::SnapshotHalfStorage;

 protected:
  bool HoldsRow(std::string_view value) const override;
  bool Absent(const store::v1::SnapshotRecord& record) const override {
    return record.changes_row_absent();
  }
  void SetAbsent(store::v1::SnapshotRecord* record, bool absent) const override {
    record->set_changes_row_absent(absent);
  }
  // A store::ConstraintError: a duplicate row identity.
  [[noreturn]] void ThrowPresent(int64_t snapshot_id) const override;
};

}  // namespace moraine::commit
