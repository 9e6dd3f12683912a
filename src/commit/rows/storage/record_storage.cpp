#include "commit/rows/storage/record_storage.h"

#include <string>
#include <utility>

#include "store/value_frame.h"

namespace moraine::commit {

void RecordStorage::ReadValueRows(std::string_view value, const ScanPlan& plan,
                                  const RowSink& sink) {
  // Read from the record's wire form: scans of the catalog read every live
  // record, and building each as a message cost most of their time.
  uint64_t ordinal = 0;
  Row row =
      mapping_.ReadPayload(store::UnframePayload(mapping_.kind(), value), plan.wanted, &ordinal);
  sink(std::move(row), ordinal);
}

void RecordStorage::Insert(const Row& row) {
  const std::string key = mapping_.KeyOf(row).Encode();
  if (staged_.Read(mapping_, key)) throw DuplicateRow(mapping_.table().name);
  auto record = mapping_.NewRecord();
  mapping_.WriteRecord(row, record.get());
  if (mapping_.has_write_ordinal()) {
    mapping_.SetWriteOrdinal(record.get(), staged_.NextWriteOrdinal());
  }
  staged_.Stage(mapping_, key, *record);
}

void RecordStorage::Update(RowTarget& target, const Row& row) {
  const std::string key = mapping_.KeyOf(row).Encode();
  // Fields the served shape does not map (a 1.1 column in a session
  // attached at 1.0) keep their values.
  auto record = staged_.Read(mapping_, target.key);
  if (!record) {
    record = mapping_.NewRecord();
    mapping_.SetWriteOrdinal(record.get(), target.ordinal);
  }
  // Setting end_snapshot on a live version moves it to history: its key
  // changes, so the current key is deleted in the same batch.
  if (key != target.key) {
    if (staged_.Read(mapping_, key)) throw DuplicateRow(mapping_.table().name);
    staged_.view().Delete(target.key);
  }
  mapping_.WriteRecord(row, record.get());
  staged_.Stage(mapping_, key, *record);
  target.key = key;
}

void RecordStorage::Remove(const RowTarget& target) { staged_.view().Delete(target.key); }

}  // namespace moraine::commit
