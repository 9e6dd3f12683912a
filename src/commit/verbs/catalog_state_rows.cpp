#include "commit/verbs/catalog_state_rows.h"

#include "catalog/record_source.h"
#include "catalog/state_loader.h"
#include "commit/verbs/catalog_rows.h"
#include "store/error.h"

namespace moraine::commit {
namespace {

class RowRecordSource : public catalog::RecordSource {
 public:
  explicit RowRecordSource(RowTransaction& rows) : rows_(rows), records_(rows) {}

  catalog::Id Head() override {
    auto latest = rows_.LatestSnapshot();
    if (!latest) throw store::CorruptionError("store has no head record: not a moraine catalog");
    return latest->snapshot_id;
  }

  std::optional<catalog::SnapshotRecord> Snapshot(catalog::Id snapshot_id) override {
    catalog::SnapshotRecord key;
    key.set_snapshot_id(snapshot_id);
    auto snapshot = records_.Find("ducklake_snapshot", key);
    if (!snapshot) return std::nullopt;
    catalog::SnapshotRecord merged;
    merged.MergeFrom(*snapshot);
    if (auto changes = records_.Find("ducklake_snapshot_changes", key)) merged.MergeFrom(*changes);
    return merged;
  }

  std::optional<catalog::Id> MaxColumnId(catalog::Id table_id) override {
    return rows_.MaxColumnId(table_id);
  }

  void Scan(std::string_view table, bool live_only, const Visit& visit) override {
    if (live_only) {
      records_.ForEachLive(table, std::nullopt, visit);
    } else {
      records_.ForEach(table, visit);
    }
  }

 private:
  RowTransaction& rows_;
  CatalogRows records_;
};

}  // namespace

catalog::CatalogState ReadCatalogState(RowTransaction& rows, std::optional<catalog::Id> at) {
  RowRecordSource source(rows);
  return catalog::LoadState(source, at);
}

}  // namespace moraine::commit
