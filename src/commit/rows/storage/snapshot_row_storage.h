// The ducklake_snapshot half of a merged snapshot record. Inserting it moves
// the newest snapshot the transaction commits; a second row of one id means
// two writers took the same next snapshot id.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include "commit/rows/storage/snapshot_half_storage.h"

namespace moraine::commit {

class SnapshotRowStorage final : public SnapshotHalfStorage {
 public:
  using SnapshotHalfStorage::SnapshotHalfStorage;

 protected:
  bool HoldsRow(std::string_view value) const override;
  bool Absent(const store::v1::SnapshotRecord& record) const override {
    return record.snapshot_row_absent();
  }
  void SetAbsent(store::v1::SnapshotRecord* record, bool absent) const override {
    record->set_snapshot_row_absent(absent);
  }
  // A store::ConflictError: a lost race DuckLake retries.
  [[noreturn]] void ThrowPresent(int64_t snapshot_id) const override;
  void Inserted(int64_t snapshot_id) override { staged_.NoteInsertedSnapshot(snapshot_id); }
};

}  // namespace moraine::commit
