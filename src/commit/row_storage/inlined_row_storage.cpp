#include "commit/row_storage/inlined_row_storage.h"

#include <algorithm>

#include "commit/inlined_tables.h"

namespace moraine::commit {

void InlinedRowStorage::Scan(const ScanRequest& request, const ScannedRowSink& sink) {
  // A scan that reads no user column (a count of the live rows) leaves the
  // cells undecoded; a row handed out with a handle is always whole (an
  // UPDATE builds its new row from it).
  const size_t leading = catalog::InlinedDataLeadingColumns().size();
  const bool leading_only = !request.handles && request.columns &&
                            std::all_of(request.columns->begin(), request.columns->end(),
                                        [&](size_t column) { return column < leading; });
  view_.Scan(inlined::RowRange(name_), [&](std::string_view key, std::string_view value) {
    sink(key,
         leading_only ? inlined::ReadLeadingColumns(name_, value) : inlined::ReadRow(name_, value),
         0);
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
