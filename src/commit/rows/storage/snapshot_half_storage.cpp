#include "commit/rows/storage/snapshot_half_storage.h"

#include <string>

namespace moraine::commit {

using store::v1::SnapshotRecord;

void SnapshotHalfStorage::ReadValueRows(std::string_view value, const ScanPlan& plan,
                                        const RowSink& sink) {
  const auto record = DecodeValue(value);
  if (!Absent(static_cast<const SnapshotRecord&>(*record))) sink(ReadWanted(*record, plan), 0);
}

void SnapshotHalfStorage::Insert(const Row& row) {
  const std::string key = mapping_.KeyOf(row).Encode();
  auto record = staged_.Read(mapping_, key);
  const int64_t snapshot_id = std::get<int64_t>(row[0]);
  if (record && !Absent(static_cast<const SnapshotRecord&>(*record))) ThrowPresent(snapshot_id);
  if (!record) {
    // The other half of the merged record is absent until inserted.
    record = mapping_.NewRecord();
    auto* snapshot = static_cast<SnapshotRecord*>(record.get());
    snapshot->set_snapshot_row_absent(true);
    snapshot->set_changes_row_absent(true);
  }
  mapping_.WriteRecord(row, record.get());
  SetAbsent(static_cast<SnapshotRecord*>(record.get()), false);
  staged_.Stage(mapping_, key, *record);
  Inserted(snapshot_id);
}

void SnapshotHalfStorage::Update(RowTarget& target, const Row& row) {
  const std::string key = mapping_.KeyOf(row).Encode();
  if (key != target.key) throw store::InvalidArgumentError("a snapshot's id cannot change");
  auto record = staged_.Read(mapping_, key);
  if (!record) throw RowGone(target);
  mapping_.WriteRecord(row, record.get());
  staged_.Stage(mapping_, key, *record);
  target.key = key;
}

void SnapshotHalfStorage::Remove(const RowTarget& target) {
  auto record = staged_.Read(mapping_, target.key);
  if (!record) return;
  auto* snapshot = static_cast<SnapshotRecord*>(record.get());
  SetAbsent(snapshot, true);
  if (snapshot->snapshot_row_absent() && snapshot->changes_row_absent()) {
    staged_.view().Delete(target.key);
  } else {
    staged_.Stage(mapping_, target.key, *record);
  }
}

}  // namespace moraine::commit
