// CommitBatchStager stages the plain statements of DuckLake's commit batch
// without DuckDB's planner. Each test runs one batch twice, on two copies of
// one lake: staged on the first, as DuckDB SQL on the second. Every table of
// the two catalogs must then hold the same rows in the same order, and the
// statements the stager must leave to DuckDB must reach DuckDB.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "duckdb/catalog/catalog.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb_shim/moraine_catalog.h"
#include "ducklake_adapter/commit_batch_stager.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using ducklake_adapter::CommitBatchStager;
using test::Rows;

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class CommitBatchStagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      test::DuckLakeSession lake;
      lake.Run("ATTACH 'ducklake:moraine:" + dir_.path("a.moraine") + "' AS lake (DATA_PATH '" +
               dir_.path("files") + "/')");
      lake.Run(
          "CREATE TABLE lake.t (a INTEGER, b VARCHAR, d DATE, x DECIMAL(9, 2), f DOUBLE, "
          "ts TIMESTAMPTZ, l INTEGER[])");
      lake.Run("INSERT INTO lake.t (a, b) VALUES (1, 'one'), (2, 'two')");
      lake.Run("ALTER TABLE lake.t ADD COLUMN c BIGINT");
      lake.Run("INSERT INTO lake.t (a, b, c) VALUES (3, 'three', 30)");
    }
    std::filesystem::copy(dir_.path("a.moraine"), dir_.path("b.moraine"),
                          std::filesystem::copy_options::recursive);
    session_.Run("ATTACH 'moraine:" + dir_.path("a.moraine") + "' AS a");
    session_.Run("ATTACH 'moraine:" + dir_.path("b.moraine") + "' AS b");
    inlined_ = session_.Query(
        "SELECT table_name FROM a.main.ducklake_inlined_data_tables ORDER BY schema_version DESC "
        "LIMIT 1")[0][0];
  }

  // A stager on lake a, in the session's open transaction.
  CommitBatchStager StagerOnLakeA() {
    auto& context = *session_.connection().context;
    auto& catalog = duckdb::Catalog::GetCatalog(context, "a").Cast<duckdb_shim::MoraineCatalog>();
    return CommitBatchStager(context, catalog, catalog.catalog_store());
  }

  struct Outcome {
    bool error = false;
    CommitBatchStager::Counts counts;
  };

  // Runs `batch` ({C} naming the catalog, {INLINED} the newest inlined data
  // table) staged on lake a and as SQL on lake b, each in a transaction of
  // its own, committed unless the batch failed.
  Outcome RunBoth(const std::string& batch) {
    const auto text = Replace(batch, "{INLINED}", inlined_);
    Outcome staged;
    session_.Run("BEGIN");
    {
      auto result = StagerOnLakeA().Run(
          Replace(text, "{C}", "a.main"),
          [&](std::string sql) { return session_.connection().Query(sql); }, staged.counts);
      staged.error = result->HasError();
      if (staged.error) sql_error_ = result->GetError();
    }
    session_.Run(staged.error ? "ROLLBACK" : "COMMIT");
    session_.Run("BEGIN");
    auto result = session_.connection().Query(Replace(text, "{C}", "b.main"));
    EXPECT_EQ(result->HasError(), staged.error) << (result->HasError() ? result->GetError() : "");
    session_.Run(result->HasError() ? "ROLLBACK" : "COMMIT");
    return staged;
  }

  // Every table of catalog a as a sorted-by-nothing dump: the rows in the
  // order a scan returns them.
  Rows Dump(const std::string& catalog) {
    Rows dump;
    for (auto& row :
         session_.Query("SELECT table_name FROM duckdb_tables() WHERE database_name = '" + catalog +
                        "' ORDER BY table_name")) {
      dump.push_back({"table " + row[0]});
      for (auto& cells : session_.Query("SELECT * FROM " + catalog + ".main." + row[0])) {
        dump.push_back(cells);
      }
    }
    return dump;
  }

  void ExpectSameLakes() { EXPECT_EQ(Dump("a"), Dump("b")); }

  // Runs `batch` both ways (RunBoth): it must succeed with `staged`
  // statements staged and `sql` left to DuckDB, leaving the lakes alike.
  void ExpectStagedAlike(const std::string& batch, uint64_t staged, uint64_t sql) {
    auto outcome = RunBoth(batch);
    EXPECT_FALSE(outcome.error) << sql_error_;
    EXPECT_EQ(outcome.counts.staged, staged);
    EXPECT_EQ(outcome.counts.sql, sql);
    ExpectSameLakes();
  }

  test::TempDir dir_;
  test::DuckLakeSession session_;
  std::string inlined_;
  std::string sql_error_;
};

TEST_F(CommitBatchStagerTest, InsertsOfConstantsAreStaged) {
  ExpectStagedAlike(
      "INSERT INTO {C}.ducklake_snapshot_changes VALUES (100, 'inlined_insert:1', NULL, "
      "'a message', NULL);"
      "INSERT INTO {C}.ducklake_snapshot_changes (changes_made, snapshot_id) VALUES "
      "('x', 101), ('y', 102);"
      "INSERT INTO {C}.{INLINED} VALUES (10, 3, NULL, 7, 'seven', '2024-02-29'::DATE, 12.5, "
      "1.5::DOUBLE, NULL, NULL, -4), (11, 3, NULL, 8, NULL, NULL, 0.25, 1e300, NULL, NULL, "
      "9223372036854775807)",
      3, 0);
}

TEST_F(CommitBatchStagerTest, UpdatesOfDuckLakesFormsAreStaged) {
  ExpectStagedAlike(
      "UPDATE {C}.ducklake_table_stats SET record_count=9, file_size_bytes=0, next_row_id=11 "
      "WHERE table_id=1;\n"
      "WITH new_values(tid, cid, new_contains_null, new_contains_nan, new_min, new_max, "
      "new_extra_stats) AS (\nVALUES (1, 1, false, NULL, '-1', '3', NULL),(1, 2, true, NULL, "
      "'one', 'two', NULL)\n)\nUPDATE {C}.ducklake_table_column_stats\nSET "
      "contains_null=CAST(new_contains_null AS BOOLEAN), contains_nan=CAST(new_contains_nan AS "
      "BOOLEAN), min_value=new_min, max_value=new_max, extra_stats=new_extra_stats\nFROM "
      "new_values\nWHERE table_id=tid AND column_id=cid;\n"
      "UPDATE {C}.ducklake_column SET end_snapshot=4 WHERE table_id=1 AND column_id=2 AND "
      "end_snapshot IS NULL;"
      "UPDATE {C}.ducklake_table_stats SET record_count=1 WHERE table_id=77",
      4, 0);
}

TEST_F(CommitBatchStagerTest, WhatIsNotPlainRunsAsSqlInItsPlace) {
  ExpectStagedAlike(
      // Integers and strings in one VALUES column: DuckDB unifies them first.
      "INSERT INTO {C}.ducklake_snapshot_changes VALUES (103, 1, NULL, NULL, NULL), "
      "(104, '2', NULL, NULL, NULL);"
      // A time zone cast, and a list: not constants here.
      "INSERT INTO {C}.{INLINED} VALUES (12, 3, NULL, 9, 'nine', NULL, NULL, NULL, "
      "'2024-01-01 10:00:00+02'::TIMESTAMP WITH TIME ZONE, NULL, NULL);"
      "INSERT INTO {C}.{INLINED} VALUES (13, 3, NULL, 10, 'ten', NULL, NULL, NULL, NULL, [1, 2], "
      "NULL);"
      // A row DuckDB deletes is gone for the staged UPDATE after it.
      "DELETE FROM {C}.ducklake_table_stats WHERE table_id=1;"
      "UPDATE {C}.ducklake_table_stats SET record_count=5 WHERE table_id=1;"
      // Two source rows for one target row: DuckDB decides.
      "WITH v(tid, n) AS (VALUES (1, 5), (1, 6)) UPDATE {C}.ducklake_table_column_stats SET "
      "min_value=n FROM v WHERE table_id=tid",
      1, 5);
}

TEST_F(CommitBatchStagerTest, AFailedStatementFailsTheBatchAndChangesNothing) {
  const auto before = Dump("a");
  auto outcome = RunBoth(
      "INSERT INTO {C}.ducklake_snapshot_changes VALUES (105, 'first', NULL, NULL, NULL);"
      "INSERT INTO {C}.ducklake_no_such_table VALUES (1);"
      "INSERT INTO {C}.ducklake_snapshot_changes VALUES (106, 'never', NULL, NULL, NULL)");
  EXPECT_TRUE(outcome.error);
  EXPECT_NE(sql_error_.find("ducklake_no_such_table"), std::string::npos) << sql_error_;
  EXPECT_EQ(outcome.counts.staged, 1u);
  EXPECT_EQ(Dump("a"), before);
  ExpectSameLakes();
}

TEST_F(CommitBatchStagerTest, NowIsTheTransactionsStart) {
  session_.Run("BEGIN");
  const auto now = session_.Query("SELECT epoch_us(now())")[0][0];
  {
    CommitBatchStager::Counts counts;
    auto result = StagerOnLakeA().Run(
        "INSERT INTO a.main.ducklake_snapshot VALUES (50, NOW(), 1, 2, 3)", nullptr, counts);
    ASSERT_FALSE(result->HasError()) << result->GetError();
    EXPECT_EQ(counts.staged, 1u);
  }
  session_.Run("COMMIT");
  EXPECT_EQ(
      session_.Query(
          "SELECT epoch_us(snapshot_time) FROM a.main.ducklake_snapshot WHERE snapshot_id = 50"),
      (Rows{{now}}));
}

// DuckLake's inlined data table DDL: a CREATE TABLE IF NOT EXISTS as wide as
// the table, of every kind of type DuckLake writes there. Staged, it must
// make the table DuckDB's CREATE would (the same columns and types), which
// then takes a staged INSERT; a second CREATE of it is ignored.
TEST_F(CommitBatchStagerTest, InlinedTableCreatesAreStaged) {
  // The newest inlined table's name with another schema version.
  const auto created = inlined_.substr(0, inlined_.rfind('_')) + "_99";
  const std::string batch =
      "CREATE TABLE IF NOT EXISTS {C}." + created +
      "(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, a INTEGER, \"odd \"\"name\" "
      "VARCHAR, d DECIMAL(9, 2), ts TIMESTAMP WITH TIME ZONE, l INTEGER[], s STRUCT(x INTEGER, "
      "\"y z\" VARCHAR[]), m MAP(VARCHAR, DOUBLE), u UUID, b BLOB, h HUGEINT, a2 INTEGER);"
      "CREATE TABLE IF NOT EXISTS {C}." +
      created +
      "(row_id BIGINT);"
      "INSERT INTO {C}." +
      created + " VALUES (1, 5, NULL, 7, 'x', 1.25, NULL, NULL, NULL, NULL, NULL, NULL, 3, 8)";
  auto outcome = RunBoth(batch);
  EXPECT_FALSE(outcome.error) << sql_error_;
  EXPECT_EQ(outcome.counts.staged, 3u);
  EXPECT_EQ(outcome.counts.sql, 0u);
  const auto columns = [&](const std::string& catalog) {
    return session_.Query(
        "SELECT column_name, data_type, is_nullable FROM duckdb_columns() WHERE database_name = '" +
        catalog + "' AND table_name = '" + created + "' ORDER BY column_index");
  };
  EXPECT_EQ(columns("a").size(), 14u);
  EXPECT_EQ(columns("a"), columns("b"));
  ExpectSameLakes();
}

// DuckLake's DELETE of inlined rows (WriteNewInlinedDeletes): a CTE row per
// row id, the rows still live and not inserted by this snapshot. Staged, it
// ends what DuckDB's UPDATE ends: not a row begun by the snapshot, not one
// already ended, not one of no CTE row.
TEST_F(CommitBatchStagerTest, DuckLakesInlinedDeleteIsStaged) {
  ExpectStagedAlike(
      "INSERT INTO {C}.{INLINED} (row_id, begin_snapshot, end_snapshot, a) VALUES (20, 8, NULL, "
      "1), (21, 8, NULL, 2), (22, 9, NULL, 3), (23, 8, 8, 4), (24, 7, NULL, 5);\n"
      "WITH deleted_row_list(deleted_row_id) AS (\nVALUES (20), (22), (23), (24), (99), (NULL)\n)\n"
      "UPDATE {C}.{INLINED}\nSET end_snapshot = 9\nFROM deleted_row_list\n"
      "WHERE row_id=deleted_row_id AND end_snapshot IS NULL AND begin_snapshot != 9;",
      2, 0);
  EXPECT_EQ(session_.Query("SELECT row_id FROM a.main." + inlined_ +
                           " WHERE end_snapshot = 9 ORDER BY row_id"),
            (Rows{{"20"}, {"24"}}));
}

// A `!=` this stager does not evaluate goes to DuckDB: against a column, and
// against a constant no BIGINT cell can hold (which every cell differs from).
TEST_F(CommitBatchStagerTest, ANotEqualOnlyDuckDBEvaluatesRunsAsSql) {
  ExpectStagedAlike(
      "UPDATE {C}.{INLINED} SET end_snapshot = 9 WHERE begin_snapshot != row_id;"
      "UPDATE {C}.{INLINED} SET a = 5 WHERE begin_snapshot != 99999999999999999999;"
      "UPDATE {C}.{INLINED} SET a = 6 WHERE begin_snapshot != NULL",
      1, 2);
  EXPECT_EQ(session_.Query("SELECT count(*) FROM a.main." + inlined_ + " WHERE a = 5"),
            (Rows{{"1"}}));
}

TEST_F(CommitBatchStagerTest, ACreateOfAnExistingTableFailsAsDuckDBsDoes) {
  auto outcome = RunBoth("CREATE TABLE {C}.{INLINED}(row_id BIGINT, a INTEGER)");
  EXPECT_TRUE(outcome.error);
  EXPECT_NE(sql_error_.find("already exists"), std::string::npos) << sql_error_;
  ExpectSameLakes();
}

// Through DuckLake: a one-row INSERT's whole batch is staged, an ALTER's
// and a CREATE's at least in part, and the lake reads back what was written.
TEST(CommitBatchStagerThroughDuckLake, AOneRowInsertsBatchIsStagedWhole) {
  test::TempDir dir;
  test::DuckLakeSession s;
  s.Run("ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") + "' AS lake (DATA_PATH '" +
        dir.path("files") + "/')");
  const auto counts = [&] {
    auto row = s.Query(
        "SELECT staged_batch_statements, sql_batch_statements FROM moraine_native_manager()");
    return std::make_pair(std::stoll(row[0][0]), std::stoll(row[0][1]));
  };
  auto before = counts();
  s.Run("CREATE TABLE lake.t (a INTEGER, b VARCHAR)");
  auto after = counts();
  EXPECT_GT(after.first, before.first);
  before = after;
  s.Run("INSERT INTO lake.t VALUES (1, 'one')");
  after = counts();
  EXPECT_EQ(after.first - before.first, 5);  // snapshot, stats, column stats, row, changes
  EXPECT_EQ(after.second - before.second, 0);
  before = after;
  s.Run("ALTER TABLE lake.t ADD COLUMN c DATE");
  s.Run("INSERT INTO lake.t VALUES (2, 'two', DATE '2024-03-01')");
  after = counts();
  EXPECT_GT(after.first - before.first, 5);
  EXPECT_EQ(s.Query("SELECT a, b, c FROM lake.t ORDER BY a"),
            (Rows{{"1", "one", "NULL"}, {"2", "two", "2024-03-01"}}));
  EXPECT_EQ(s.Query("SELECT count(*) FROM lake.snapshots()"), (Rows{{"5"}}));
}

}  // namespace
}  // namespace moraine
