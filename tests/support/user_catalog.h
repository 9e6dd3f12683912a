// The whole catalog of an attached lake as a user reads it at the head:
// tables with their comments, columns with types and defaults, views,
// macros, and every row of every table. Two lakes that should hold the same
// catalog (a rollback against a stock replay) compare equal on it.
#pragma once

#include <string>

#include "support/ducklake_session.h"

namespace moraine::test {

inline Rows UserCatalog(DuckLakeSession& session, const std::string& lake) {
  Rows all;
  const auto append = [&](const Rows& rows) { all.insert(all.end(), rows.begin(), rows.end()); };
  const std::string where = " WHERE database_name = '" + lake + "'";
  const Rows tables = session.Query("SELECT schema_name, table_name, comment FROM duckdb_tables()" +
                                    where + " ORDER BY ALL");
  append(tables);
  append(
      session.Query("SELECT schema_name, table_name, column_name, data_type, column_default FROM "
                    "duckdb_columns()" +
                    where + " ORDER BY ALL"));
  append(session.Query("SELECT schema_name, view_name, sql FROM duckdb_views()" + where +
                       " AND NOT internal ORDER BY ALL"));
  append(session.Query("SELECT schema_name, function_name FROM duckdb_functions()" + where +
                       " ORDER BY ALL"));
  for (const auto& table : tables) {
    append({{"rows of " + table[0] + "." + table[1]}});
    append(
        session.Query("SELECT * FROM " + lake + "." + table[0] + "." + table[1] + " ORDER BY ALL"));
  }
  return all;
}

}  // namespace moraine::test
