// A query result that hands out chunks it already holds, one per Fetch, in
// order: what the manager answers DuckLake's ReadInlinedData with. DuckLake
// reads that result once, by Fetch, into its own collection
// (TransformInlinedData), so handing the decoded chunks over directly saves
// the copy into, and the scan out of, a materialized result's collection.
//
// Its type is STREAM_RESULT, what a result read by Fetch until it returns
// nullptr is; it is not a StreamQueryResult, and nothing may cast it to one
// (DuckLake does not). Thread-safety: none; one reader.
#pragma once

#include <string>

#include "duckdb/common/types/data_chunk.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/query_result.hpp"

namespace moraine::ducklake_adapter {

class ChunkQueryResult final : public duckdb::QueryResult {
 public:
  // `chunks` hold `column_types`, none empty.
  ChunkQueryResult(duckdb::ClientContext& context, duckdb::vector<duckdb::LogicalType> column_types,
                   duckdb::vector<std::string> column_names,
                   duckdb::vector<duckdb::unique_ptr<duckdb::DataChunk>> chunks);

  std::string ToString() override;

 protected:
  // The next chunk, moved out; nullptr after the last.
  duckdb::unique_ptr<duckdb::DataChunk> FetchInternal() override;

 private:
  duckdb::vector<duckdb::unique_ptr<duckdb::DataChunk>> chunks_;
  size_t next_ = 0;
};

}  // namespace moraine::ducklake_adapter
