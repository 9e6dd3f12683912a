// Whether a filter DuckDB pushed into a scan of inlined rows can pass any row
// of a batch, told from the batch's summary alone (the bounds of the
// filtered column's cells: commit/rows/inlined_batch_summary.h), so that a
// batch no row of which passes is not read.
//
// Decided on the raw cells, in the order the DuckDB shim gives them
// (duckdb_shim/raw_cell_order.h): a constant comparison, IS [NOT] NULL, IN
// and their AND and OR, with constants of the column's own type, also where
// DuckDB pushed one as optional (it filters the rows again itself). Anything
// else is not a BoundsFilter, and rules nothing out. A filter rules a batch
// out only when it is sure: where the order cannot tell, the batch is read.
//
// Thread-safety: immutable once made.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commit/rows/inlined_batch_summary.h"
#include "duckdb/common/enums/expression_type.hpp"
#include "duckdb/common/types.hpp"
#include "duckdb/planner/table_filter.hpp"

namespace moraine::ducklake_adapter {

class BoundsFilter {
 public:
  // `filter` on a column of `type` as a BoundsFilter, or nullopt when it is
  // not one this decides.
  static std::optional<BoundsFilter> Of(const duckdb::TableFilter& filter,
                                        const duckdb::LogicalType& type);

  // Whether no cell within `bounds` (ordered by `order`) passes.
  bool RulesOut(const commit::inlined::ColumnBounds<std::string_view>& bounds,
                const commit::inlined::CellOrder& order) const;

 private:
  enum class Kind { kCompare, kIsNull, kIsNotNull, kIn, kAnd, kOr };
  explicit BoundsFilter(Kind kind) : kind_(kind) {}
  // Whether every cell within `bounds` lies outside `constant`'s (below or
  // above it) for kCompare's comparison, or for kIn (equality).
  bool NoCellPasses(std::string_view constant,
                    const commit::inlined::ColumnBounds<std::string_view>& bounds,
                    const commit::inlined::CellOrder& order) const;

  Kind kind_;
  duckdb::ExpressionType comparison_ = duckdb::ExpressionType::INVALID;
  std::vector<std::string> constants_;  // raw cells of the column's type
  std::vector<BoundsFilter> children_;
};

}  // namespace moraine::ducklake_adapter
