// One snapshot's rows of an inlined data table, as store format 3 keeps them:
// one InlinedRowBatchRecord (store/records.proto) per (table, schema version,
// begin_snapshot), its user columns one byte string each. DuckLake inlines a
// commit's rows of a table in one INSERT and reads a table's inlined rows
// whole, so a scan costs one record per commit instead of one per row, and a
// reader that only needs some columns never touches the others' bytes.
//
// Two forms:
//   InlinedRowBatchView  a stored value read in place (no copy of any cell),
//                        for scans;
//   InlinedRowBatch      decoded rows a transaction changes (an INSERT's rows
//                        appended, a DELETE's end_snapshot set, a flush's
//                        rows removed), framed again when the transaction's
//                        scans or commit read it; a stored row's cells stay
//                        in the stored bytes unless the row is replaced.
// Thread-safety: neither is shared; a view lives as long as the bytes it reads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace moraine::commit::inlined {

class InlinedRowBatchView {
 public:
  // Reads the framed value `value` of a batch whose table has `user_columns`
  // user columns. Throws store::CorruptionError for a value that does not
  // parse, or whose lists disagree with each other or with `user_columns`.
  // The view reads the cells in place: `value` must outlive it.
  InlinedRowBatchView(std::string_view value, size_t user_columns);
  // A view of no batch yet, for Read.
  InlinedRowBatchView() = default;
  // Reads `value` as the constructor does, reusing this view's storage: a
  // scan of many batches allocates once, not per batch. On a throw the view
  // holds no batch.
  void Read(std::string_view value, size_t user_columns);

  size_t size() const { return row_ids_.size(); }
  int64_t row_id(size_t row) const { return row_ids_[row]; }
  std::optional<int64_t> end_snapshot(size_t row) const {
    if (ends_.empty() || ends_[row] == 0) return std::nullopt;
    return ends_[row] - 1;
  }

  // The cells of one user column, row by row: nullopt for SQL NULL.
  class Cells {
   public:
    // The next row's cell. Throws store::CorruptionError past the column's end.
    std::optional<std::string_view> Next();

   private:
    friend class InlinedRowBatchView;
    explicit Cells(std::string_view bytes) : rest_(bytes) {}
    std::string_view rest_;
  };
  Cells ColumnCells(size_t column) const { return Cells(columns_[column]); }

  // Whether every column holds exactly size() cells and nothing after them
  // (a walk over every cell; for verification, not for scans).
  bool CellsComplete() const;

 private:
  void Parse(std::string_view value, size_t user_columns);
  void Clear();  // keeps the vectors' storage

  std::vector<int64_t> row_ids_;
  std::vector<int64_t> ends_;  // end_snapshot + 1, 0 for NULL; empty: no row ended
  std::vector<std::string_view> columns_;
};

class InlinedRowBatch {
 public:
  struct Row {
    int64_t row_id = 0;
    std::optional<int64_t> end_snapshot;
    std::vector<std::optional<std::string>> cells;  // the user columns
    bool removed = false;
  };

  explicit InlinedRowBatch(size_t user_columns) : user_columns_(user_columns) {}
  // The batch a stored value holds; throws what InlinedRowBatchView throws.
  // The stored rows' cells stay in the value's bytes until a row is
  // replaced: a DELETE that ends one row of each of many batches copies no
  // cell (issue #32).
  static InlinedRowBatch Decode(std::string_view value, size_t user_columns);

  // The index of the live row `row_id`, nullopt if the batch holds none.
  std::optional<size_t> Find(int64_t row_id) const;
  // Appends a row whose id the batch does not hold (the caller checked).
  void Append(Row row);
  // The row at `index` (a Find result): its id and a user column's cell.
  int64_t row_id(size_t index) const { return rows_[index].row_id; }
  std::optional<std::string_view> cell(size_t index, size_t column) const;
  // Replaces the row at `index` with `row`, which keeps its row id: only its
  // end snapshot is taken when its cells are the row's own.
  void Replace(size_t index, Row row);
  void Remove(size_t index);

  bool empty() const { return live_ == 0; }
  // The framed value of the live rows, in insertion order; a batch with no
  // live row is deleted, not encoded.
  std::string Encode() const;

 private:
  // A row of the batch: decoded from the stored value (`stored` its index
  // there, `cells` empty) or given by the transaction (`cells` its own).
  struct Slot : Row {
    int64_t stored = -1;
  };
  bool SameCells(const Slot& slot, const Row& row) const;
  // Indexes the live rows by id once the batch holds more than a few rows;
  // a streamed INSERT's batch of ten is searched in place.
  void IndexIfLarge();
  static constexpr size_t kSearchedInPlace = 16;

  size_t user_columns_;
  // The decoded value (shared: a copied batch reads the same bytes) and its
  // stored rows' cells, column by column, viewing into it.
  std::shared_ptr<const std::string> stored_value_;
  std::vector<std::vector<std::optional<std::string_view>>> stored_cells_;
  std::vector<Slot> rows_;  // removed rows stay until encoded
  size_t live_ = 0;
  std::optional<std::unordered_map<int64_t, size_t>> index_;  // live rows by id
};

}  // namespace moraine::commit::inlined
