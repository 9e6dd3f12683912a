#include "commit/rows/inlined_batch_summary.h"

#include <atomic>
#include <map>
#include <utility>

#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/inlined_tables.h"
#include "store/error.h"
#include "store/value_frame.h"

namespace moraine::commit::inlined {

using store::Kind;

namespace {

std::atomic<const CellOrder*> cell_order{nullptr};

// The flags byte of a column's bounds in a page (records.proto).
constexpr uint8_t kHasNull = 1, kHasValue = 2, kOrdered = 4;

[[noreturn]] void ThrowCorrupt(const std::string& what) {
  throw store::CorruptionError("inlined batch summary page: " + what);
}

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

uint64_t ReadVarint(std::string_view& in) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in.empty()) ThrowCorrupt("a column's bounds end early");
    const auto byte = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  ThrowCorrupt("a length does not end");
}

std::string_view ReadCell(std::string_view& in) {
  const uint64_t length = ReadVarint(in);
  if (length > in.size()) ThrowCorrupt("a cell runs past its column");
  const std::string_view cell = in.substr(0, length);
  in.remove_prefix(length);
  return cell;
}

// Bounds of one column's cells, widened cell by cell.
class BoundsBuilder {
 public:
  explicit BoundsBuilder(const CellOrder* order) : order_(order) { bounds_.ordered = order; }

  void Add(std::optional<std::string_view> cell) {
    if (!cell) {
      bounds_.has_null = true;
      return;
    }
    if (!bounds_.has_value) {
      bounds_.has_value = true;
      if (bounds_.ordered) bounds_.min = bounds_.max = std::string(*cell);
      return;
    }
    if (!bounds_.ordered) return;
    const auto below = order_->Less(*cell, bounds_.min);
    const auto above = order_->Less(bounds_.max, *cell);
    if (!below || !above) {
      bounds_.ordered = false;
      bounds_.min.clear();
      bounds_.max.clear();
      return;
    }
    if (*below) bounds_.min = std::string(*cell);
    if (*above) bounds_.max = std::string(*cell);
  }

  ColumnBounds<std::string> Finish() {
    // Bounds of no value order nothing.
    if (!bounds_.has_value) bounds_.ordered = false;
    return std::move(bounds_);
  }

 private:
  const CellOrder* order_;
  ColumnBounds<std::string> bounds_;
};

// The data table and begin snapshot of the batch stored under `key`.
std::pair<catalog::InlinedTableName, int64_t> BatchOf(std::string_view key) {
  const store::Key decoded = store::Key::Decode(key);
  return {{catalog::InlinedTableName::kData, static_cast<int64_t>(decoded.component(0)),
           static_cast<int64_t>(decoded.component(1))},
          static_cast<int64_t>(decoded.component(2))};
}

// The user column count of data table `table`, whose shape `shape` read
// (nullopt: the store holds a batch of a table that does not exist).
size_t UserColumnsOf(const catalog::InlinedTableName& table,
                     const std::optional<std::string>& shape) {
  if (!shape) {
    throw store::CorruptionError("a batch of " + catalog::FormatInlinedTableName(table) +
                                 " is in the store, but the table does not exist");
  }
  return UserColumnCount(table, *shape);
}

}  // namespace

void SetCellOrder(const CellOrder* order) { cell_order.store(order, std::memory_order_release); }
const CellOrder* GetCellOrder() { return cell_order.load(std::memory_order_acquire); }

store::Key SummaryPageKey(const catalog::InlinedTableName& name, int64_t begin_snapshot) {
  return store::Key::Current(
      Kind::kInlinedBatchSummary,
      {static_cast<uint64_t>(name.table_id), static_cast<uint64_t>(name.schema_version),
       static_cast<uint64_t>(begin_snapshot / kSummaryPageSnapshots)});
}

store::KeyRange SummaryRange(const catalog::InlinedTableName& name) {
  return store::PrefixRange(
      store::Subspace::kInlineData, Kind::kInlinedBatchSummary,
      {static_cast<uint64_t>(name.table_id), static_cast<uint64_t>(name.schema_version)});
}

BatchSummary Summarize(int64_t begin_snapshot, std::string_view value, size_t user_columns) {
  const InlinedRowBatchView batch(value, user_columns);
  BatchSummary summary;
  summary.begin_snapshot = begin_snapshot;
  summary.rows = static_cast<int64_t>(batch.size());
  for (size_t row = 0; row < batch.size(); ++row) {
    if (const auto end = batch.end_snapshot(row)) summary.ended.push_back(*end);
  }
  const CellOrder* order = GetCellOrder();
  for (size_t column = 0; column < user_columns; ++column) {
    BoundsBuilder bounds(order);
    auto cells = batch.ColumnCells(column);
    for (size_t row = 0; row < batch.size(); ++row) bounds.Add(cells.Next());
    summary.columns.push_back(bounds.Finish());
  }
  return summary;
}

void SummaryPage::Read(std::string_view value) {
  store::UnframeValue(Kind::kInlinedBatchSummary, value, &record_);
  const size_t batches = size();
  if (static_cast<size_t>(record_.rows_size()) != batches ||
      static_cast<size_t>(record_.ended_counts_size()) != batches) {
    ThrowCorrupt("its lists disagree");
  }
  ended_begin_.assign(1, 0);
  for (size_t batch = 0; batch < batches; ++batch) {
    const int64_t count = record_.ended_counts(static_cast<int>(batch));
    if (count < 0 || count > record_.rows(static_cast<int>(batch))) ThrowCorrupt("a count is off");
    ended_begin_.push_back(ended_begin_.back() + static_cast<size_t>(count));
  }
  if (ended_begin_.back() != static_cast<size_t>(record_.ended_size())) {
    ThrowCorrupt("its end snapshots disagree with their counts");
  }
  bounds_.resize(static_cast<size_t>(record_.column_bounds_size()));
  for (size_t column = 0; column < bounds_.size(); ++column) {
    auto& bounds = bounds_[column];
    bounds.clear();
    std::string_view in = record_.column_bounds(static_cast<int>(column));
    for (size_t batch = 0; batch < batches; ++batch) {
      if (in.empty()) ThrowCorrupt("a column's bounds end early");
      const auto flags = static_cast<uint8_t>(in.front());
      in.remove_prefix(1);
      ColumnBounds<std::string_view> read{
          .has_null = (flags & kHasNull) != 0,
          .has_value = (flags & kHasValue) != 0,
          .ordered = (flags & (kHasValue | kOrdered)) == (kHasValue | kOrdered)};
      if (read.ordered) {
        read.min = ReadCell(in);
        read.max = ReadCell(in);
      }
      bounds.push_back(read);
    }
    if (!in.empty()) ThrowCorrupt("a column's bounds run past its batches");
  }
}

int64_t SummaryPage::LiveRows(size_t batch, int64_t snapshot) const {
  int64_t live = record_.rows(static_cast<int>(batch));
  for (size_t i = ended_begin_[batch]; i < ended_begin_[batch + 1]; ++i) {
    live -= record_.ended(static_cast<int>(i)) <= snapshot;
  }
  return live;
}

ColumnBounds<std::string_view> SummaryPage::Bounds(size_t batch, size_t column) const {
  if (column >= bounds_.size()) return {.has_null = true, .has_value = true};
  return bounds_[column][batch];
}

BatchSummary SummaryPage::Decode(size_t batch) const {
  BatchSummary summary;
  summary.begin_snapshot = begin_snapshot(batch);
  summary.rows = record_.rows(static_cast<int>(batch));
  for (size_t i = ended_begin_[batch]; i < ended_begin_[batch + 1]; ++i) {
    summary.ended.push_back(record_.ended(static_cast<int>(i)));
  }
  for (const auto& column : bounds_) {
    const auto& read = column[batch];
    summary.columns.push_back({read.has_null, read.has_value, read.ordered, std::string(read.min),
                               std::string(read.max)});
  }
  return summary;
}

std::string EncodeSummaryPage(const std::vector<BatchSummary>& batches) {
  store::v1::InlinedBatchSummaryPage page;
  const size_t columns = batches.empty() ? 0 : batches.front().columns.size();
  for (size_t column = 0; column < columns; ++column) page.add_column_bounds();
  for (const BatchSummary& batch : batches) {
    if (batch.columns.size() != columns) {
      throw store::InvalidArgumentError("the batches of one summary page differ in their columns");
    }
    page.add_begin_snapshots(batch.begin_snapshot);
    page.add_rows(batch.rows);
    page.add_ended_counts(static_cast<int64_t>(batch.ended.size()));
    for (const int64_t end : batch.ended) page.add_ended(end);
    for (size_t column = 0; column < columns; ++column) {
      const auto& bounds = batch.columns[column];
      std::string& out = *page.mutable_column_bounds(static_cast<int>(column));
      const bool ordered = bounds.ordered && bounds.has_value;
      out += static_cast<char>((bounds.has_null ? kHasNull : 0) |
                               (bounds.has_value ? kHasValue : 0) | (ordered ? kOrdered : 0));
      if (!ordered) continue;
      for (const std::string* cell : {&bounds.min, &bounds.max}) {
        AppendVarint(out, cell->size());
        out += *cell;
      }
    }
  }
  return store::FrameValue(Kind::kInlinedBatchSummary, page);
}

void SummarizeEveryBatch(const store::KvSnapshot& snapshot, store::WriteBatch* batch) {
  const auto pages = store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedBatchSummary);
  for (auto it = snapshot.Scan(pages); it->Valid(); it->Next())
    batch->Delete(std::string(it->key()));
  std::map<std::string, std::vector<BatchSummary>> summarized;
  std::map<std::pair<int64_t, int64_t>, size_t> user_columns;
  const auto batches = store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRowBatch);
  for (auto it = snapshot.Scan(batches); it->Valid(); it->Next()) {
    const auto [table, begin] = BatchOf(it->key());
    auto columns = user_columns.find({table.table_id, table.schema_version});
    if (columns == user_columns.end()) {
      columns = user_columns
                    .emplace(std::make_pair(table.table_id, table.schema_version),
                             UserColumnsOf(table, snapshot.Get(ExistenceKey(table).Encode())))
                    .first;
    }
    summarized[SummaryPageKey(table, begin).Encode()].push_back(
        Summarize(begin, it->value(), columns->second));
  }
  for (const auto& [page_key, summaries] : summarized) {
    batch->Put(page_key, EncodeSummaryPage(summaries));
  }
}

void UpdateSummaryPages(StagedView& view) {
  // The staged batches by page, each with its begin snapshot and its value
  // (nullopt: deleted); copied, as the pages are staged into the same view.
  struct BatchWrite {
    catalog::InlinedTableName table;
    int64_t begin = 0;
    std::optional<std::string> value;
  };
  std::map<std::string, std::vector<BatchWrite>> pages;
  view.VisitStagedWrites(
      store::PrefixRange(store::Subspace::kInlineData, Kind::kInlinedRowBatch),
      [&](std::string_view key, const std::optional<std::string>& value) {
        const auto [table, begin] = BatchOf(key);
        pages[SummaryPageKey(table, begin).Encode()].push_back({table, begin, value});
      });
  SummaryPage stored_page;
  for (auto& [page_key, writes] : pages) {
    std::map<int64_t, BatchSummary> by_begin;
    if (const auto stored = view.Get(page_key)) {
      stored_page.Read(*stored);
      for (size_t batch = 0; batch < stored_page.size(); ++batch) {
        by_begin.emplace(stored_page.begin_snapshot(batch), stored_page.Decode(batch));
      }
    }
    const auto& table = writes.front().table;
    std::optional<size_t> user_columns;
    for (const BatchWrite& write : writes) {
      if (!write.value) {
        by_begin.erase(write.begin);
        continue;
      }
      if (!user_columns)
        user_columns = UserColumnsOf(table, view.Get(ExistenceKey(table).Encode()));
      by_begin[write.begin] = Summarize(write.begin, *write.value, *user_columns);
    }
    if (by_begin.empty()) {
      view.Delete(page_key);
      continue;
    }
    std::vector<BatchSummary> batches;
    for (auto& entry : by_begin) batches.push_back(std::move(entry.second));
    view.Put(page_key, EncodeSummaryPage(batches));
  }
}

}  // namespace moraine::commit::inlined
