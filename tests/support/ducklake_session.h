// A DuckDB host with moraine registered and the pinned DuckLake loaded, plus
// one connection and helpers that fail the test with the statement and
// DuckDB's error. Shared by the e2e tests that drive DuckLake SQL.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

namespace moraine::test {

using Rows = std::vector<std::vector<std::string>>;

class DuckLakeSession {
 public:
  DuckLakeSession() : connection_(host_.Connect()) {
    // DuckLake's catalog cache has an upstream race with several threads.
    Run("SET threads = 1");
  }

  void Run(const std::string& sql) {
    auto result = connection_->Query(sql);
    ASSERT_FALSE(result->HasError()) << sql << "\n  -> " << result->GetError();
  }

  Rows Query(const std::string& sql) {
    auto result = connection_->Query(sql);
    EXPECT_FALSE(result->HasError()) << sql << "\n  -> " << result->GetError();
    Rows rows;
    if (result->HasError()) return rows;
    for (duckdb::idx_t r = 0; r < result->RowCount(); r++) {
      std::vector<std::string> row;
      for (duckdb::idx_t c = 0; c < result->ColumnCount(); c++) {
        auto value = result->GetValue(c, r);
        row.push_back(value.IsNull() ? "NULL" : value.ToString());
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // Runs a statement that must fail; returns DuckDB's error message.
  std::string Error(const std::string& sql) {
    auto result = connection_->Query(sql);
    EXPECT_TRUE(result->HasError()) << sql << " unexpectedly succeeded";
    return result->HasError() ? result->GetError() : "";
  }

  // The newest snapshot id of the lake attached as `lake`.
  int64_t Head(const std::string& lake = "lake") {
    auto rows =
        Query("SELECT max(snapshot_id) FROM __ducklake_metadata_" + lake + ".ducklake_snapshot");
    return rows.empty() ? -1 : std::stoll(rows[0][0]);
  }

  duckdb::Connection& connection() { return *connection_; }
  ducklake_adapter::Host& host() { return host_; }

 private:
  ducklake_adapter::Host host_;
  std::unique_ptr<duckdb::Connection> connection_;
};

}  // namespace moraine::test
