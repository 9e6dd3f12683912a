#include "duckdb_shim/latest_inlined_table_result.h"

#include <charconv>

#include "commit/table_rows.h"
#include "duckdb_shim/result_rows.h"

namespace moraine::duckdb_shim {

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
  std::optional<std::pair<std::string, int64_t>> latest;
  // In key order (table_id, schema_version): the last row has the largest.
  commit::TableRows(rows, "ducklake_inlined_data_tables",
                    {"table_id", "table_name", "schema_version"})
      .ForEachWithKey(table_id, [&](const std::vector<size_t>& at, const commit::Row& row) {
        const auto* name = std::get_if<std::string>(&row[at[1]]);
        const auto* version = std::get_if<int64_t>(&row[at[2]]);
        if (name && version) latest.emplace(*name, *version);
      });
  ResultRows result({"table_name", "schema_version"},
                    {duckdb::LogicalType::VARCHAR, duckdb::LogicalType::BIGINT});
  if (latest) {
    result.NewRow();
    result.Set(0, duckdb::Value(latest->first));
    result.Set(1, duckdb::Value::BIGINT(latest->second));
  }
  return result.Finish(context.GetClientProperties());
}

}  // namespace moraine::duckdb_shim
