#include "catalog/state_loader.h"

#include <string>

#include "catalog/record_io.h"
#include "store/error.h"

namespace moraine::catalog {

using store::Key;
using store::Kind;

Id ReadHeadSnapshotId(const store::KvSnapshot& snapshot) {
  auto head = ReadRecord<HeadRecord>(snapshot, Key::Current(Kind::kHead, {}));
  if (!head) throw store::CorruptionError("store has no head record: not a moraine catalog");
  return static_cast<Id>(head->snapshot_id());
}

CatalogState LoadState(const store::KvSnapshot& snapshot, std::optional<Id> at) {
  const Id head = ReadHeadSnapshotId(snapshot);
  const Id target = at.value_or(head);
  if (target < 0 || target > head) {
    throw store::NotFoundError("snapshot " + std::to_string(target) + " does not exist (head is " +
                               std::to_string(head) + ")");
  }
  auto snapshot_record =
      ReadRecord<SnapshotRecord>(snapshot, Key::Current(Kind::kSnapshot, {uint64_t(target)}));
  if (!snapshot_record) {
    throw store::NotFoundError("snapshot " + std::to_string(target) + " is not in the store");
  }
  // At head, `current` alone is the catalog; a filter is only needed before it.
  const std::optional<Id> filter = target == head ? std::nullopt : std::optional<Id>(target);

  CatalogState state;
  state.SetSnapshot(*snapshot_record);
  ScanVersionsAt<SchemaRecord>(snapshot, Kind::kSchema, {}, filter,
                               [&](const SchemaRecord& r) { state.PutSchema(r); });
  ScanVersionsAt<TableRecord>(snapshot, Kind::kTable, {}, filter,
                              [&](const TableRecord& r) { state.PutTable(r); });
  ScanVersionsAt<ColumnRecord>(snapshot, Kind::kColumn, {}, filter,
                               [&](const ColumnRecord& r) { state.PutColumn(r); });
  ScanVersionsAt<DataFileRecord>(snapshot, Kind::kDataFile, {}, filter,
                                 [&](const DataFileRecord& r) { state.PutDataFile(r); });
  ScanVersionsAt<ViewRecord>(snapshot, Kind::kView, {}, filter,
                             [&](const ViewRecord& r) { state.PutView(r); });
  return state;
}

}  // namespace moraine::catalog
