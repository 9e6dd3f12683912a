#include "ducklake_adapter/chunk_query_result.h"

#include <utility>

namespace moraine::ducklake_adapter {

ChunkQueryResult::ChunkQueryResult(duckdb::ClientContext& context,
                                   duckdb::vector<duckdb::LogicalType> column_types,
                                   duckdb::vector<std::string> column_names,
                                   duckdb::vector<duckdb::unique_ptr<duckdb::DataChunk>> chunks)
    : QueryResult(duckdb::QueryResultType::STREAM_RESULT, duckdb::StatementType::SELECT_STATEMENT,
                  duckdb::StatementProperties(), std::move(column_types), std::move(column_names),
                  context.GetClientProperties()),
      chunks_(std::move(chunks)) {}

std::string ChunkQueryResult::ToString() {
  return "[moraine: " + std::to_string(chunks_.size() - next_) + " chunks not fetched]";
}

duckdb::unique_ptr<duckdb::DataChunk> ChunkQueryResult::FetchInternal() {
  if (next_ == chunks_.size()) return nullptr;
  return std::move(chunks_[next_++]);
}

}  // namespace moraine::ducklake_adapter
