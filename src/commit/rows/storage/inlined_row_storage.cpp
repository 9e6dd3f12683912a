#include "commit/rows/storage/inlined_row_storage.h"

#include <algorithm>

#include "commit/rows/inlined_tables.h"

namespace moraine::commit {

void InlinedRowStorage::Scan(const ScanRequest& request, const ScannedRowSink& sink) {
  StagedView& view = staged_.view();
  if (!IsData()) {
    view.Scan(inlined::RowRange(name_), [&](std::string_view key, std::string_view value) {
      sink(key, inlined::ReadDeleteRow(value), 0);
    });
    return;
  }
  // A scan that reads no user column (a count of the live rows) leaves the
  // cells unread; a row handed out with a handle is always whole (an UPDATE
  // builds its new row from it).
  const size_t leading = catalog::InlinedDataLeadingColumns().size();
  const bool leading_only = !request.handles && request.columns &&
                            std::all_of(request.columns->begin(), request.columns->end(),
                                        [&](size_t column) { return column < leading; });
  const size_t user_columns = UserColumns();
  inlined::InlinedRowBatchView batch;
  view.Scan(inlined::RowRange(name_), [&](std::string_view key, std::string_view value) {
    const int64_t begin = inlined::BatchBeginSnapshot(key);
    batch.Read(value, user_columns);
    std::vector<Row> rows(batch.size());
    for (size_t r = 0; r < batch.size(); ++r) {
      const auto end = batch.end_snapshot(r);
      rows[r] = {batch.row_id(r), begin, end ? Cell(*end) : Cell(std::monostate{})};
      rows[r].reserve(leading + user_columns);
    }
    for (size_t column = 0; column < user_columns; ++column) {
      if (leading_only) {
        for (auto& row : rows) row.emplace_back(std::monostate{});
        continue;
      }
      auto cells = batch.ColumnCells(column);
      for (auto& row : rows) {
        const auto cell = cells.Next();
        row.push_back(cell ? Cell(catalog::OpaqueValue{std::string(*cell)})
                           : Cell(std::monostate{}));
      }
    }
    for (auto& row : rows) sink(key, std::move(row), 0);
  });
}

void InlinedRowStorage::Insert(const Row& row) {
  const std::string key = inlined::RowKey(name_, row).Encode();
  if (!IsData()) {
    StagedView& view = staged_.view();
    if (view.Get(key)) throw DuplicateRow(table_);
    view.Put(key, inlined::DeleteRowValue(row));
    return;
  }
  InsertIntoBatch(key, row);
}

void InlinedRowStorage::InsertIntoBatch(const std::string& key, const Row& row) {
  auto batch_row = inlined::BatchRowOf(name_, row, UserColumns());
  auto& batch = staged_.OpenBatch(key, UserColumns());
  if (batch.Find(batch_row.row_id)) throw DuplicateRow(table_);
  batch.Append(std::move(batch_row));
  staged_.MarkBatchChanged(key);
}

void InlinedRowStorage::Update(RowTarget& target, const Row& row) {
  const std::string key = inlined::RowKey(name_, row).Encode();
  if (!IsData()) {
    StagedView& view = staged_.view();
    if (key != target.key) {
      if (view.Get(key)) throw DuplicateRow(table_);
      view.Delete(target.key);
    }
    view.Put(key, inlined::DeleteRowValue(row));
    target.key = key;
    return;
  }
  auto new_row = inlined::BatchRowOf(name_, row, UserColumns());
  auto [batch, index] = FindTarget(target);
  if (key == target.key && new_row.row_id == batch->row_id(index)) {
    batch->Replace(index, std::move(new_row));
    staged_.MarkBatchChanged(key);
    return;
  }
  // The row moves to another batch or row id: in when it is free, then out.
  auto& into = staged_.OpenBatch(key, UserColumns());
  if (into.Find(new_row.row_id)) throw DuplicateRow(table_);
  batch->Remove(index);
  staged_.MarkBatchChanged(target.key);
  into.Append(std::move(new_row));
  staged_.MarkBatchChanged(key);
  target.key = key;
}

void InlinedRowStorage::Remove(const RowTarget& target) {
  if (!IsData()) {
    staged_.view().Delete(target.key);
    return;
  }
  auto [batch, index] = FindTarget(target);
  batch->Remove(index);
  staged_.MarkBatchChanged(target.key);
}

std::pair<inlined::InlinedRowBatch*, size_t> InlinedRowStorage::FindTarget(
    const RowTarget& target) {
  auto& batch = staged_.OpenBatch(target.key, UserColumns());
  const auto* row_id = target.row.empty() ? nullptr : std::get_if<int64_t>(&target.row[0]);
  const auto index = row_id ? batch.Find(*row_id) : std::nullopt;
  if (!index) throw RowGone(target);
  return {&batch, *index};
}

size_t InlinedRowStorage::UserColumns() {
  if (!user_columns_) {
    const auto shape = staged_.view().Get(inlined::ExistenceKey(name_).Encode());
    if (!shape) throw store::NotFoundError("table " + table_ + " does not exist");
    user_columns_ = inlined::UserColumnCount(name_, *shape);
  }
  return *user_columns_;
}

}  // namespace moraine::commit
