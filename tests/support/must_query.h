// Runs SQL on a plain DuckDB connection, failing the test (with the statement
// and DuckDB's error) when it errs. For tests without a DuckLakeSession.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "duckdb.hpp"

namespace moraine::test {

inline std::unique_ptr<duckdb::MaterializedQueryResult> MustQuery(duckdb::Connection& connection,
                                                                  const std::string& sql) {
  auto result = connection.Query(sql);
  EXPECT_FALSE(result->HasError()) << sql << ": " << result->GetError();
  return result;
}

}  // namespace moraine::test
