#include "ducklake_adapter/latest_inlined_table_result.h"

#include <charconv>
#include <vector>

#include "commit/rows/table_rows.h"
#include "ducklake_adapter/result_rows.h"

namespace moraine::ducklake_adapter {

std::optional<int64_t> LatestInlinedTableQueryOf(LatestInlinedTableQueryFunction text_for,
                                                 const std::string& query) {
  // DuckLake's text names the table id after the first "table_id = ".
  constexpr std::string_view kMarker = "table_id = ";
  const size_t at = query.find(kMarker);
  if (at == std::string::npos) return std::nullopt;
  const char* digits = query.data() + at + kMarker.size();
  uint64_t table_id = 0;
  const auto [end, error] = std::from_chars(digits, query.data() + query.size(), table_id);
  if (error != std::errc() || end == digits) return std::nullopt;
  const std::string expected = text_for(table_id);
  if (query != expected && query != expected + ";") return std::nullopt;
  return static_cast<int64_t>(table_id);
}

duckdb::unique_ptr<duckdb::QueryResult> LatestInlinedTableResult(duckdb::ClientContext& context,
                                                                 commit::RowTransaction& rows,
                                                                 int64_t table_id) {
  // In key order (table_id, schema_version): the last row has the largest.
  std::optional<commit::Row> latest;
  std::vector<size_t> columns;
  commit::TableRows(rows, "ducklake_inlined_data_tables",
                    {"table_id", "table_name", "schema_version"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const commit::Row& row) {
        columns = at;
        latest = row;
      });
  ResultRows result({"table_name", "schema_version"},
                    {duckdb::LogicalType::VARCHAR, duckdb::LogicalType::BIGINT});
  if (latest) {
    // As the SQL gives the row: a NULL cell stays NULL.
    result.NewRow();
    if (const auto* name = std::get_if<std::string>(&(*latest)[columns[1]])) {
      result.Set(0, duckdb::Value(*name));
    }
    if (const auto* version = std::get_if<int64_t>(&(*latest)[columns[2]])) {
      result.Set(1, duckdb::Value::BIGINT(*version));
    }
  }
  return result.Finish(context.GetClientProperties());
}

}  // namespace moraine::ducklake_adapter
