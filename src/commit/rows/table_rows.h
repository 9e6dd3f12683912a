// The rows of one ducklake_* table with the named columns filled in, for the
// reads that name the columns they need instead of knowing their positions
// (catalog version 1.1 appends columns): by a leading key, or live at a
// snapshot.
//
// Thread-safety: uses the RowTransaction it is given, which the caller
// serializes (as every RowTransaction use).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commit/rows/row_transaction.h"

namespace moraine::commit {

class TableRows {
 public:
  // The visitor gets the positions of the named columns, in the order named.
  using Visit = std::function<void(const std::vector<size_t>& at, const Row& row)>;

  // Throws store::NotFoundError for a table the transaction does not serve
  // and store::InvalidArgumentError for a column it does not have.
  TableRows(RowTransaction& rows, std::string_view table, std::vector<std::string_view> columns);

  // The rows whose first named column, a leading key column, is `key`.
  void ForEachWithKey(int64_t key, const Visit& visit);
  // Of those, the rows whose named column `named` (its place in the names
  // given) holds a value in [lower, upper]. The scan uses the bound to skip
  // what lies outside it: a container's other entries are not decoded.
  void ForEachWithKeyWithin(int64_t key, size_t named, int64_t lower, int64_t upper,
                            const Visit& visit);
  // The rows whose first named column, a leading key column, is at least
  // `lowest` (and every row when nullopt).
  void ForEachFrom(std::optional<int64_t> lowest, const Visit& visit);

  // The rows live at `snapshot` (every row of a table without begin/end, or
  // when `snapshot` is nullopt). `at_head`: the snapshot is the newest, so
  // live rows are exactly those not ended, which sit in `current` alone.
  // `key`: only the rows whose first named column, a leading key column, is
  // `key` (as ForEachWithKey).
  void ForEachLive(std::optional<int64_t> snapshot, bool at_head, const Visit& visit,
                   std::optional<int64_t> key = std::nullopt);
  // Of the rows live at `snapshot` whose first named column is `key`, those
  // whose named column `named` holds a value in [lower, upper], which the
  // scan uses to skip what lies outside it (as ForEachWithKeyWithin).
  void ForEachLiveWithin(std::optional<int64_t> snapshot, bool at_head, int64_t key, size_t named,
                         int64_t lower, int64_t upper, const Visit& visit);

 private:
  // The rows whose columns of `bounds` (integer bounds, either end open)
  // hold integers within them.
  void ForEachWithin(std::vector<ColumnBound> bounds, const Visit& visit);
  // The rows live at `snapshot` (as ForEachLive) whose columns of `bounds`
  // hold integers within them.
  void ForEachLiveBounded(std::optional<int64_t> snapshot, bool at_head,
                          std::vector<ColumnBound> bounds, const Visit& visit);

  RowTransaction& rows_;
  std::string table_;
  std::vector<size_t> at_;
  std::optional<size_t> begin_;
  std::optional<size_t> end_;
};

}  // namespace moraine::commit
