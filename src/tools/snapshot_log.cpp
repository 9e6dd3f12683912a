#include "tools/snapshot_log.h"

#include <cstdio>
#include <ctime>
#include <vector>

#include "catalog/record_io.h"

namespace moraine::tools {
namespace {

// Microseconds since the epoch as "YYYY-MM-DD HH:MM:SS.ffffff+00".
std::string IsoTime(int64_t micros) {
  int64_t seconds = micros / 1000000;
  int64_t fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    seconds -= 1;
  }
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[64];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02d %02d:%02d:%02d.%06lld+00", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(fraction));
  return text;
}

}  // namespace

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
