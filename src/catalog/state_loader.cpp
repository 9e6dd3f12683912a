#include "catalog/state_loader.h"

#include <string>

#include "catalog/max_column_id.h"
#include "catalog/record_io.h"
#include "catalog/row_mapping.h"
#include "store/error.h"

namespace moraine::catalog {

using store::Key;
using store::Kind;

namespace {

// Records of a store snapshot, found where the row mapping keeps each table.
class SnapshotRecordSource : public RecordSource {
 public:
  explicit SnapshotRecordSource(const store::KvSnapshot& snapshot) : snapshot_(snapshot) {}

  Id Head() override { return ReadHeadSnapshotId(snapshot_); }

  std::optional<SnapshotRecord> Snapshot(Id snapshot_id) override {
    auto record = ReadRecord<SnapshotRecord>(
        snapshot_, Key::Current(Kind::kSnapshot, {static_cast<uint64_t>(snapshot_id)}));
    if (!record || record->snapshot_row_absent()) return std::nullopt;
    return record;
  }

  std::optional<Id> MaxColumnId(Id table_id) override { return MaxColumnIdIn(snapshot_, table_id); }

  void Scan(std::string_view table, bool live_only, const Visit& visit) override {
    const RowMapping* mapping = FindRowMapping(CatalogVersion::kV1_0, table);
    if (!mapping) throw store::InvalidArgumentError("no catalog table " + std::string(table));
    for (store::Subspace subspace : mapping->Subspaces()) {
      if (live_only && subspace == store::Subspace::kHistory) continue;
      for (auto it = snapshot_.Scan(store::PrefixRange(subspace, mapping->kind())); it->Valid();
           it->Next()) {
        auto record = mapping->NewRecord();
        store::UnframeValue(mapping->kind(), it->value(), record.get());
        visit(*record);
      }
    }
  }

 private:
  const store::KvSnapshot& snapshot_;
};

// Whether a version with these bounds is live at `at` (nullopt: at head).
template <class Record>
bool LiveAt(const Record& record, std::optional<Id> at) {
  if (!at) return !record.has_end_snapshot();
  if (!record.has_begin_snapshot() || record.begin_snapshot() > *at) return false;
  return !record.has_end_snapshot() || record.end_snapshot() > *at;
}

template <class Record>
void ForEachLive(RecordSource& source, std::string_view table, std::optional<Id> at,
                 const std::function<void(const Record&)>& visit) {
  source.Scan(table, !at, [&](const google::protobuf::Message& message) {
    const auto& record = static_cast<const Record&>(message);
    if (LiveAt(record, at)) visit(record);
  });
}

}  // namespace

Id ReadHeadSnapshotId(const store::KvSnapshot& snapshot) {
  auto head = ReadRecord<HeadRecord>(snapshot, Key::Current(Kind::kHead, {}));
  if (!head) throw store::CorruptionError("store has no head record: not a moraine catalog");
  return static_cast<Id>(head->snapshot_id());
}

CatalogState LoadState(RecordSource& source, std::optional<Id> at) {
  const Id head = source.Head();
  const Id target = at.value_or(head);
  if (target < 0 || target > head) {
    throw store::NotFoundError("snapshot " + std::to_string(target) + " does not exist (head is " +
                               std::to_string(head) + ")");
  }
  auto snapshot_record = source.Snapshot(target);
  if (!snapshot_record) {
    throw store::NotFoundError("snapshot " + std::to_string(target) + " is not in the store");
  }
  // At head, the live versions alone are the catalog; a filter is only needed before it.
  const std::optional<Id> filter = target == head ? std::nullopt : std::optional<Id>(target);

  CatalogState state;
  state.SetSnapshot(*snapshot_record);
  ForEachLive<SchemaRecord>(source, "ducklake_schema", filter,
                            [&](const SchemaRecord& r) { state.PutSchema(r); });
  ForEachLive<TableRecord>(source, "ducklake_table", filter,
                           [&](const TableRecord& r) { state.PutTable(r); });
  ForEachLive<ColumnRecord>(source, "ducklake_column", filter, [&](const ColumnRecord& r) {
    if (state.Table(r.table_id())) state.PutColumn(r);
  });
  ForEachLive<DataFileRecord>(source, "ducklake_data_file", filter, [&](const DataFileRecord& r) {
    if (state.Table(r.table_id())) state.PutDataFile(r);
  });
  ForEachLive<ViewRecord>(source, "ducklake_view", filter,
                          [&](const ViewRecord& r) { state.PutView(r); });
  // DuckLake's next column id: every version counts, ended ones included.
  std::vector<Id> table_ids;
  for (const TableState* table : state.Tables()) table_ids.push_back(table->id());
  for (Id table_id : table_ids) {
    const std::optional<Id> max = source.MaxColumnId(table_id);
    if (!max) continue;
    TableRecord record = state.Table(table_id)->record;
    record.set_next_column_id(static_cast<uint64_t>(*max + 1));
    state.PutTable(record);
  }
  return state;
}

CatalogState LoadState(const store::KvSnapshot& snapshot, std::optional<Id> at) {
  SnapshotRecordSource source(snapshot);
  return LoadState(source, at);
}

}  // namespace moraine::catalog
