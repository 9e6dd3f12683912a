// The summaries of an inlined data table's row batches (store format 3,
// commit/rows/inlined_row_batch.h): per batch, its begin snapshot, its row
// count, the end snapshots of its ended rows and each user column's bounds,
// kept in pages of 64 snapshots (InlinedBatchSummaryPage, records.proto).
//
// A lake of streamed inserts holds one batch per commit: 20,000 batches for
// 200,000 rows inlined ten at a time. A count of the live rows, or a scan
// whose filters rule most batches out, reads the pages instead (one value per
// 64 snapshots) and only the batches it cannot rule out.
//
// The pages are derived data, written in the commit that writes the batches
// (UpdateSummaryPages, from the batches the commit stages, against the head
// it lands on), and trusted only where the lake's head says every batch has
// its entry (HeadRecord.inlined_batch_summaries); a lake whose head does not
// is read batch by batch, as before.
//
// Cells are opaque to the core: how two cells of a column order is the
// DuckDB shim's to say (CellOrder). Without one, a column's bounds are left
// unordered, which rules nothing out and stays true.
//
// Thread-safety: SummaryPage belongs to one thread; the functions are
// functions of their arguments; SetCellOrder is called by the DuckDB shim
// before its first commit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "commit/rows/staged_view.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/records.pb.h"
#include "store/write_batch.h"

namespace moraine::commit::inlined {

// How the opaque cells of a column order (less than), as the encoder of the
// cells knows it: nullopt for cells it does not order (then the column's
// bounds are left unordered).
class CellOrder {
 public:
  virtual ~CellOrder() = default;
  virtual std::optional<bool> Less(std::string_view a, std::string_view b) const = 0;
};
// The order the summaries use; null until the DuckDB shim sets its own.
void SetCellOrder(const CellOrder* order);
const CellOrder* GetCellOrder();

// Batches a summary page covers, by begin snapshot.
inline constexpr int64_t kSummaryPageSnapshots = 64;

// The key of the page holding the summary of the batch that began at
// `begin_snapshot` in data table `name`.
store::Key SummaryPageKey(const catalog::InlinedTableName& name, int64_t begin_snapshot);
// The range of every summary page of data table `name`.
store::KeyRange SummaryRange(const catalog::InlinedTableName& name);

// One user column's cells in a batch: whether one is NULL, whether one is
// not, and (when the cells are `ordered`) the least and the greatest of
// those that are not, as stored. `Text` is std::string or std::string_view.
template <class Text>
struct ColumnBounds {
  bool has_null = false;
  bool has_value = false;
  bool ordered = false;
  Text min{}, max{};
  bool operator==(const ColumnBounds&) const = default;
};

// A batch's summary, decoded.
struct BatchSummary {
  int64_t begin_snapshot = 0;
  int64_t rows = 0;
  std::vector<int64_t> ended;  // the end snapshots of its ended rows, in row order
  std::vector<ColumnBounds<std::string>> columns;
  bool operator==(const BatchSummary&) const = default;
};

// The summary of the batch stored as `value` (framed), which began at
// `begin_snapshot` in a table of `user_columns` user columns. Throws what
// InlinedRowBatchView throws for a value that is not one.
BatchSummary Summarize(int64_t begin_snapshot, std::string_view value, size_t user_columns);

// A stored page, read in place: its cells are views of the value read.
class SummaryPage {
 public:
  // Reads the framed page `value`, which must outlive the reads of its
  // bounds; reuses this object's storage. Throws store::CorruptionError for
  // a value that is not a page.
  void Read(std::string_view value);

  size_t size() const { return static_cast<size_t>(record_.begin_snapshots_size()); }
  int64_t begin_snapshot(size_t batch) const { return record_.begin_snapshots(batch); }
  // The rows of the batch live at `snapshot` (ended after it, or not at all).
  int64_t LiveRows(size_t batch, int64_t snapshot) const;
  // The bounds of `column` in `batch`; unordered (ruling nothing out) for a
  // column the page does not bound.
  ColumnBounds<std::string_view> Bounds(size_t batch, size_t column) const;
  // The summary of `batch`, copied out.
  BatchSummary Decode(size_t batch) const;

 private:
  store::v1::InlinedBatchSummaryPage record_;
  std::vector<size_t> ended_begin_;                                  // per batch, then the total
  std::vector<std::vector<ColumnBounds<std::string_view>>> bounds_;  // per column, per batch
};

// The framed page of `batches` (ascending begin snapshots).
std::string EncodeSummaryPage(const std::vector<BatchSummary>& batches);

// Puts into `batch` the summary pages of every inlined row batch `snapshot`
// holds, and deletes any page it holds: for a lake whose head does not say
// its batches are summarized (records.proto), by `moraine migrate`.
void SummarizeEveryBatch(const store::KvSnapshot& snapshot, store::WriteBatch* batch);

// Brings the summary pages in `view` up to date with every inlined row batch
// the view stages (put or deleted), reading each touched page and table
// shape through the view. Called once per commit, before it lands.
void UpdateSummaryPages(StagedView& view);

}  // namespace moraine::commit::inlined
