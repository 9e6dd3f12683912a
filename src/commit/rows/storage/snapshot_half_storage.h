// ducklake_snapshot and ducklake_snapshot_changes share one SnapshotRecord
// per snapshot id (catalog/row_mapping.h): each table's row is one half of
// it, flagged absent until inserted and after a delete. The record is
// deleted once both halves are absent. A subclass names its half.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include <cstdint>

#include "commit/rows/storage/fixed_row_storage.h"
#include "store/records.pb.h"

namespace moraine::commit {

class SnapshotHalfStorage : public FixedRowStorage {
 public:
  using FixedRowStorage::FixedRowStorage;

  void Insert(const Row& row) final;
  // A snapshot's id is its key: throws store::InvalidArgumentError if `row`
  // changes it.
  void Update(RowTarget& target, const Row& row) final;
  void Remove(const RowTarget& target) final;

 protected:
  void ReadValueRows(std::string_view value, const ScanPlan& plan, const RowSink& sink) final;

  // Whether this half is absent from `record`, and marking it so.
  virtual bool Absent(const store::v1::SnapshotRecord& record) const = 0;
  virtual void SetAbsent(store::v1::SnapshotRecord* record, bool absent) const = 0;
  // Throws the error for an insert of this half where it is already present.
  [[noreturn]] virtual void ThrowPresent(int64_t snapshot_id) const = 0;
  // Called once this half of snapshot `snapshot_id` has been staged.
  virtual void Inserted(int64_t /*snapshot_id*/) {}
};

}  // namespace moraine::commit
