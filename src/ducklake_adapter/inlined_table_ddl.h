// DuckLake's inlined data table DDL, read without DuckDB's parser. A column
// change makes DuckLake create the new schema version's inlined data table,
// `CREATE TABLE IF NOT EXISTS <catalog>.<schema>.<table>(<name> <type>, ...)`,
// as wide as the table (InlinedTableDdlSql in DuckLake's metadata manager);
// DuckDB's parser took a quarter of a 2,010-column table's ADD COLUMN reading
// it. This reads that one form and nothing else; anything it does not
// recognise stays whole for DuckDB's parser.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace moraine::ducklake_adapter {

struct InlinedTableDdl {
  std::string catalog;
  std::string schema;
  std::string table;
  // Each column's name (unquoted) and its type as written, for the binder.
  std::vector<std::pair<std::string, std::string>> columns;
};

// A run of a commit batch: DuckLake's inlined table DDL, read, or SQL text
// for DuckDB's parser (one or more statements).
struct BatchSegment {
  std::string_view sql;
  std::optional<InlinedTableDdl> ddl;
};

// `batch` cut into segments in order, each DDL statement of the recognised
// form its own. nullopt when the batch holds none, or when its quoting or
// comments leave any doubt about where its statements end.
std::optional<std::vector<BatchSegment>> SplitAtInlinedTableDdl(std::string_view batch);

// `statement` (one statement, without its `;`) read as the recognised
// form: three-part name, a column list of names and types only (no
// constraint, default, collation or other clause, and no empty parentheses,
// which DuckDB's parser refuses). nullopt otherwise.
std::optional<InlinedTableDdl> ReadInlinedTableDdl(std::string_view statement);

}  // namespace moraine::ducklake_adapter
