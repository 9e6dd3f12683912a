#include "commit/rows/storage/fixed_row_storage.h"

#include <algorithm>
#include <string>
#include <utility>

#include "commit/rows/storage/changes_row_storage.h"
#include "commit/rows/storage/entry_storage.h"
#include "commit/rows/storage/record_storage.h"
#include "commit/rows/storage/snapshot_row_storage.h"
#include "store/value_frame.h"

namespace moraine::commit {

using catalog::RowShape;

std::unique_ptr<FixedRowStorage> FixedRowStorage::For(const catalog::RowMapping& mapping,
                                                      StagedRecords& staged) {
  switch (mapping.shape()) {
    case RowShape::kRecord:
      return std::make_unique<RecordStorage>(mapping, staged);
    case RowShape::kSnapshotRow:
      return std::make_unique<SnapshotRowStorage>(mapping, staged);
    case RowShape::kChangesRow:
      return std::make_unique<ChangesRowStorage>(mapping, staged);
    case RowShape::kEntry:
      return std::make_unique<EntryStorage>(mapping, staged);
  }
  return nullptr;
}

void FixedRowStorage::Scan(const ScanRequest& request, const ScannedRowSink& sink) {
  const ScanPlan plan = PlanScan(mapping_, request);
  const auto ranges = PlanKeyRanges(mapping_, request.bounds);
  if (!mapping_.has_write_ordinal()) {  // key order is write order
    ScanRanges(ranges, [&](std::string_view key, std::string_view value) {
      ReadRows(value, plan, key,
               [&](Row row, uint64_t ordinal) { sink(key, std::move(row), ordinal); });
    });
    return;
  }
  // Rows in the order they were written, as a DuckDB table returns them:
  // held until the scan is complete (a visitor may also stage writes).
  struct VisitedRow {
    uint64_t ordinal;
    std::string key;
    Row row;
  };
  // Keys are kept only for rows handed out with handles.
  std::vector<VisitedRow> rows;
  ScanRanges(ranges, [&](std::string_view key, std::string_view value) {
    ReadRows(value, plan, key, [&](Row row, uint64_t ordinal) {
      rows.push_back({ordinal, request.handles ? std::string(key) : std::string(), std::move(row)});
    });
  });
  const auto by_ordinal = [](const VisitedRow& a, const VisitedRow& b) {
    return a.ordinal < b.ordinal;
  };
  if (!std::is_sorted(rows.begin(), rows.end(), by_ordinal)) {
    std::stable_sort(rows.begin(), rows.end(), by_ordinal);
  }
  for (auto& row : rows) sink(row.key, std::move(row.row), row.ordinal);
}

Row FixedRowStorage::ReadWanted(const google::protobuf::Message& record,
                                const ScanPlan& plan) const {
  return plan.wanted.empty() ? mapping_.ReadRecord(record)
                             : mapping_.ReadRecord(record, plan.wanted);
}

void FixedRowStorage::ReadRows(std::string_view value, const ScanPlan& plan, std::string_view key,
                               const RowSink& sink) {
  if (plan.key_only) {
    if (!HoldsRow(value)) return;
    const uint64_t ordinal =
        mapping_.has_write_ordinal()
            ? mapping_.WriteOrdinalOfPayload(store::UnframePayload(mapping_.kind(), value))
            : 0;
    sink(mapping_.ReadKey(key, plan.wanted), ordinal);
    return;
  }
  ReadValueRows(value, plan, sink);
}

std::unique_ptr<google::protobuf::Message> FixedRowStorage::DecodeValue(
    std::string_view value) const {
  auto record = mapping_.NewRecord();
  store::UnframeValue(mapping_.kind(), value, record.get());
  return record;
}

void FixedRowStorage::ScanRanges(const std::vector<store::KeyRange>& ranges,
                                 const RecordVisitor& read) {
  if (mapping_.versioned() && ranges.size() == 2) {
    ScanVersions(ranges[0], ranges[1], read);
    return;
  }
  for (const auto& range : ranges) staged_.view().Scan(range, read);
}

// Visits the live and ended versions of a versioned table merged in
// identity order, an identity's ended versions (oldest end first) before its
// live one: the order rows without write ordinals keep (scans of tables
// with ordinals sort by them afterwards, stably).
// A history key is its current key with end_snapshot appended (fixed-width
// big-endian components), so identities compare as byte strings.
void FixedRowStorage::ScanVersions(const store::KeyRange& current, const store::KeyRange& history,
                                   const RecordVisitor& read) {
  std::vector<std::pair<std::string, std::string>> ended;
  staged_.view().Scan(history, [&](std::string_view key, std::string_view value) {
    ended.emplace_back(key, value);
  });
  size_t next = 0;
  staged_.view().Scan(current, [&](std::string_view key, std::string_view value) {
    const std::string_view identity = key.substr(2);
    while (next < ended.size() &&
           std::string_view(ended[next].first).substr(2, identity.size()) <= identity) {
      read(ended[next].first, ended[next].second);
      ++next;
    }
    read(key, value);
  });
  for (; next < ended.size(); ++next) read(ended[next].first, ended[next].second);
}

}  // namespace moraine::commit
