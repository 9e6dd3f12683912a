// Rows appended to a DuckDB ColumnDataCollection a chunk at a time, each row
// starting as all NULLs; for the result sets moraine's metadata manager
// builds in place of DuckLake's SQL (conflict_check_result.h,
// catalog_query_results.h).
//
// Thread-safety: none; one builder per result.
#pragma once

#include "duckdb/common/types/column/column_data_collection.hpp"
#include "duckdb/common/types/data_chunk.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/materialized_query_result.hpp"

namespace moraine::ducklake_adapter {

class ResultRows {
 public:
  ResultRows(duckdb::vector<std::string> names, duckdb::vector<duckdb::LogicalType> types)
      : names_(std::move(names)),
        types_(std::move(types)),
        collection_(duckdb::make_uniq<duckdb::ColumnDataCollection>(
            duckdb::Allocator::DefaultAllocator(), types_)) {
    chunk_.Initialize(duckdb::Allocator::DefaultAllocator(), types_);
  }

  // A row of NULLs, to be filled with Set.
  void NewRow() {
    if (chunk_.size() == STANDARD_VECTOR_SIZE) Flush();
    row_ = chunk_.size();
    chunk_.SetCardinality(row_ + 1);
    for (duckdb::idx_t column = 0; column < types_.size(); ++column) {
      chunk_.SetValue(column, row_, duckdb::Value(types_[column]));
    }
  }
  void Set(duckdb::idx_t column, const duckdb::Value& value) {
    chunk_.SetValue(column, row_, value);
  }

  // The rows as a query result; the builder is spent.
  duckdb::unique_ptr<duckdb::QueryResult> Finish(const duckdb::ClientProperties& properties) {
    Flush();
    return duckdb::make_uniq<duckdb::MaterializedQueryResult>(
        duckdb::StatementType::SELECT_STATEMENT, duckdb::StatementProperties(), std::move(names_),
        std::move(collection_), properties);
  }

 private:
  void Flush() {
    if (chunk_.size() == 0) return;
    collection_->Append(chunk_);
    chunk_.Reset();
  }

  duckdb::vector<std::string> names_;
  duckdb::vector<duckdb::LogicalType> types_;
  duckdb::unique_ptr<duckdb::ColumnDataCollection> collection_;
  duckdb::DataChunk chunk_;
  duckdb::idx_t row_ = 0;
};

}  // namespace moraine::ducklake_adapter
