// How `moraine sql` prints a query result: DuckDB's box rendering for people,
// CSV or JSON lines for programs.
#pragma once

#include <ostream>

namespace duckdb {
class ClientContext;
class MaterializedQueryResult;
}  // namespace duckdb

namespace moraine::cli {

enum class OutputFormat { kBox, kCsv, kJson };

void PrintResult(duckdb::MaterializedQueryResult& result, duckdb::ClientContext& context,
                 OutputFormat format, std::ostream& out);

}  // namespace moraine::cli
