#include "tools/snapshot_log.h"

#include <vector>

#include "catalog/record_io.h"
#include "tools/iso_time.h"

namespace moraine::tools {

ToolTable SnapshotLog(const store::KvSnapshot& snapshot) {
  std::vector<catalog::SnapshotRecord> snapshots;
  catalog::ScanRecords<catalog::SnapshotRecord>(
      snapshot, store::PrefixRange(store::Subspace::kSnapshot, store::Kind::kSnapshot),
      store::Kind::kSnapshot,
      [&](const catalog::SnapshotRecord& record) { snapshots.push_back(record); });
  ToolTable log;
  log.columns = {{"snapshot_id", ToolType::kBigint},    {"snapshot_time", ToolType::kVarchar},
                 {"schema_version", ToolType::kBigint}, {"changes", ToolType::kVarchar},
                 {"author", ToolType::kVarchar},        {"commit_message", ToolType::kVarchar}};
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    const catalog::SnapshotRecord& record = *it;
    log.rows.push_back({record.snapshot_id(),
                        record.has_snapshot_time() ? ToolCell(IsoTime(record.snapshot_time()))
                                                   : ToolCell(std::monostate{}),
                        CellOf(record.has_schema_version(), record.schema_version()),
                        CellOf(record.has_changes_made(), record.changes_made()),
                        CellOf(record.has_author(), record.author()),
                        CellOf(record.has_commit_message(), record.commit_message())});
  }
  return log;
}

}  // namespace moraine::tools
