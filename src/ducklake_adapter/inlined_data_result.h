// DuckLake's read of a table's inlined rows (DuckLakeMetadataManager::
// ReadInlinedData: the rows of ducklake_inlined_data_<table>_<version> live
// at a snapshot, projected, in row id order), answered from the store's row
// batches (commit/rows/inlined_row_batch.h) instead of by SQL over a row per key.
// Only the batches that began by the snapshot are read, only the projected
// columns' cells are decoded, and plain cells decode with one copy each
// (duckdb_shim/column_codec.h): a scan costs about what a DuckDB table's does.
//
// DuckLake names the columns to read as SQL: an optionally quoted column
// name, or `CAST(<name> AS <type>)` (what its CastColumnToTarget writes for a
// catalog that is not DuckDB's). Any other projection is left to DuckLake's
// SQL.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/row_transaction.h"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"
#include "duckdb/planner/table_filter.hpp"
#include "duckdb/planner/table_filter_state.hpp"
#include "ducklake_adapter/bounds_filter.h"

namespace moraine::ducklake_adapter {

// The rows DuckLake's ReadInlinedData(snapshot, table, columns) returns, as
// a row transaction sees them (staged writes included), in three steps:
//
//   FindTable (under the moraine transaction's lock) → Bind (holding no lock)
//   → Read (under the lock) → Finish (holding no lock).
//
// Bind and Finish call into DuckDB's binder and casts, which may look a type
// name up in every attached catalog: JSON is a type the json extension
// registers by name, and this lake's metadata catalog, a moraine catalog, is
// among those searched. Its lookup takes the transaction's lock, so doing
// either under that lock deadlocked the read of a JSON column's inlined rows.
//
// Thread-safety: one read at a time per object.
class InlinedDataRead {
 public:
  // What an output column reads: a leading column or a user column, in its
  // stored type, then cast to `type` if that differs.
  struct ProjectedColumn {
    enum class Source { kRowId, kBeginSnapshot, kEndSnapshot, kUser } source = Source::kUser;
    size_t user_column = 0;
    duckdb::LogicalType stored;
    duckdb::LogicalType type;
  };

  InlinedDataRead();
  ~InlinedDataRead();

  // The columns of `table` if it is an inlined data table `rows` holds;
  // nullopt for DuckLake's SQL to answer (and raise its own error).
  static std::optional<commit::TableSpec> FindTable(commit::RowTransaction& rows,
                                                    const std::string& table);
  // Binds DuckLake's projection of `spec`; false when a column is not one
  // this reads, for DuckLake's SQL to answer.
  bool Bind(duckdb::ClientContext& context, const commit::TableSpec& spec,
            const std::vector<std::string>& columns);
  // Leaves out of Read the rows DuckLake's inlined reader would drop by
  // `filters` (keyed by the position of a bound column; `types`: the type
  // of each such column in the reader's rows, what its filters compare), on
  // user columns read in the reader's type: rows by the filters DuckDB
  // evaluates here exactly as the reader's Scan does (constant comparisons,
  // IS [NOT] NULL and their AND/OR), and whole batches, unread, by the
  // filters their summaries' bounds decide (bounds_filter.h). Any other
  // filter is left to the reader. Call after Bind, before Read.
  void Filter(duckdb::ClientContext& context, const duckdb::TableFilterSet& filters,
              const std::vector<duckdb::LogicalType>& types);
  // Decodes the bound columns of the rows live at `snapshot`.
  void Read(commit::RowTransaction& rows, const std::string& table, int64_t snapshot);
  // The rows read, in row id order, cast to the projection's types.
  duckdb::unique_ptr<duckdb::QueryResult> Finish(duckdb::ClientContext& context);
  // Live rows Read left out by the filters (with those of the batches it
  // did not read).
  uint64_t pruned() const;
  // Batches Read did not read: their summaries' bounds rule the filters out
  // (commit/rows/inlined_batch_summary.h).
  uint64_t batches_skipped() const { return batches_skipped_; }

  // A filter Read applies to the bound column `column`.
  struct BoundFilter {
    size_t column = 0;
    const duckdb::TableFilter* filter = nullptr;
    duckdb::unique_ptr<duckdb::TableFilterState> state;
    // The filter as a batch's summary decides it, if it does.
    std::optional<BoundsFilter> bounds;
  };

 private:
  class LiveRows;
  // Whether a filter rules out every row of `batch` of `page` by its bounds.
  bool RuledOut(const commit::inlined::SummaryPage& page, size_t batch,
                const commit::inlined::CellOrder& order) const;

  std::vector<ProjectedColumn> projection_;
  std::vector<BoundFilter> filters_;
  uint64_t batches_skipped_ = 0;
  uint64_t rows_ruled_out_ = 0;
  std::unique_ptr<LiveRows> live_;
};

}  // namespace moraine::ducklake_adapter
