#include "commit/row_storage/inlined_row_storage.h"

#include "commit/inlined_tables.h"

namespace moraine::commit {

void InlinedRowStorage::Scan(const ScanRequest& /*request*/, const ScannedRowSink& sink) {
  view_.Scan(inlined::RowRange(name_), [&](std::string_view key, std::string_view value) {
    sink(key, inlined::ReadRow(name_, value), 0);
  });
}

void InlinedRowStorage::Insert(const Row& row) {
  const std::string key = inlined::RowKey(name_, row).Encode();
  if (view_.Get(key)) throw DuplicateRow(table_);
  view_.Put(key, inlined::RowValue(name_, row, ColumnCount()));
}

void InlinedRowStorage::Update(RowTarget& target, const Row& row) {
  const std::string key = inlined::RowKey(name_, row).Encode();
  if (key != target.key) {
    if (view_.Get(key)) throw DuplicateRow(table_);
    view_.Delete(target.key);
  }
  view_.Put(key, inlined::RowValue(name_, row, ColumnCount()));
  target.key = key;
}

void InlinedRowStorage::Remove(const RowTarget& target) { view_.Delete(target.key); }

size_t InlinedRowStorage::ColumnCount() const {
  return inlined::SpecOf(name_, *view_.Get(inlined::ExistenceKey(name_).Encode())).columns.size();
}

}  // namespace moraine::commit
