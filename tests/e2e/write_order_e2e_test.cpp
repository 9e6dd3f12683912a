// Scans of DuckLake's catalog tables without ORDER BY return rows in the order
// they were written, as DuckLake's own DuckDB-file catalog does (a DuckDB
// table scans in insertion order, updating in place), rather than in the
// order of moraine's keys. DuckLake's own tests read ducklake_metadata,
// ducklake_column and ducklake_data_file that way (inlining_global_options,
// merge_adjacent_global_option, add_column_with_default). Each case runs the
// same SQL on a moraine lake and a stock lake in one session and compares.
#include <gtest/gtest.h>

#include <string>

#include "support/ducklake_session.h"
#include "support/lake_sql.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::Rows;

class WriteOrder : public ::testing::Test {
 protected:
  // Attaches the moraine lake as `lake` and the stock one as `stock`.
  void AttachBoth(const std::string& options = "") {
    session_.Run("ATTACH 'ducklake:moraine:" + dir_.path("lake.moraine") +
                 "' AS lake (DATA_PATH '" + dir_.path("lake_files") + "/'" + options + ")");
    session_.Run("ATTACH 'ducklake:" + dir_.path("stock.db") + "' AS stock (DATA_PATH '" +
                 dir_.path("stock_files") + "/'" + options + ")");
  }

  static std::string On(const std::string& sql, const std::string& lake) {
    return test::OnLake(sql, lake);
  }

  void RunBoth(const std::string& sql) {
    session_.Run(On(sql, "lake"));
    session_.Run(On(sql, "stock"));
  }

  // The rows on moraine, which must be the stock lake's in the same order.
  Rows SameOnBoth(const std::string& sql) {
    Rows moraine = session_.Query(On(sql, "lake"));
    EXPECT_EQ(moraine, session_.Query(On(sql, "stock"))) << sql;
    return moraine;
  }

  test::TempDir dir_;
  test::DuckLakeSession session_;
};

// Options live in one container per scope, keyed global < schema < table;
// DuckLake wrote them table, schema, global, and updated one in place.
TEST_F(WriteOrder, AnOptionsScanReturnsOptionsInTheOrderTheyWereSet) {
  AttachBoth();
  RunBoth("CREATE TABLE $L.t1 (i INTEGER)");
  RunBoth("CREATE TABLE $L.t2 (i INTEGER)");
  RunBoth("CALL $L.set_option('auto_compact', false, schema => 'main', table_name => 't2')");
  RunBoth("CALL $L.set_option('auto_compact', false, schema => 'main')");
  RunBoth("CALL $L.set_option('target_file_size', '1MB')");
  RunBoth("CALL $L.set_option('auto_compact', false, schema => 'main', table_name => 't1')");
  RunBoth("CALL $L.set_option('auto_compact', true, schema => 'main', table_name => 't2')");
  const Rows rows = SameOnBoth(
      "SELECT key, value, scope, scope_id FROM $M.ducklake_metadata WHERE key <> 'data_path'");
  ASSERT_GE(rows.size(), 4u);
  // The last four: the table option updated in place keeps its place.
  const Rows tail(rows.end() - 4, rows.end());
  EXPECT_EQ(tail, (Rows{{"auto_compact", "true", "table", "2"},
                        {"auto_compact", "false", "schema", "0"},
                        {"target_file_size", "1000000", "NULL", "NULL"},
                        {"auto_compact", "false", "table", "1"}}));
}

// add_column_with_default.test: a column's ended version stays where it was
// written (DuckDB updates end_snapshot in place) and its new version follows
// every earlier row, rather than sitting beside it in key order.
TEST_F(WriteOrder, AColumnScanReturnsVersionsInTheOrderTheyWereWritten) {
  AttachBoth();
  RunBoth("CREATE TABLE $L.test (i INTEGER)");
  RunBoth("ALTER TABLE $L.test ADD COLUMN j INTEGER DEFAULT 42");
  RunBoth("ALTER TABLE $L.test ALTER i SET DEFAULT 1000");
  RunBoth("ALTER TABLE $L.test ALTER j DROP DEFAULT");
  const std::string columns =
      "SELECT table_id, column_id, initial_default, default_value, end_snapshot IS NULL "
      "FROM $M.ducklake_column";
  const Rows rows = SameOnBoth(columns);
  EXPECT_EQ(rows, (Rows{{"1", "1", "NULL", "NULL", "false"},
                        {"1", "2", "42", "42", "false"},
                        {"1", "1", "NULL", "1000", "true"},
                        {"1", "2", "42", "NULL", "true"}}));
  // A scan narrowed by the key's leading column keeps the same order.
  EXPECT_EQ(SameOnBoth(columns + " WHERE table_id = 1"), rows);
}

// merge_adjacent_global_option.test: data file rows are keyed by table
// first, but written file by file across tables; merging one table's files
// ends them and appends the merged file last.
TEST_F(WriteOrder, ADataFileScanReturnsFilesInTheOrderTheyWereWritten) {
  AttachBoth(", DATA_INLINING_ROW_LIMIT 0");
  RunBoth("CREATE TABLE $L.a (i INTEGER)");
  RunBoth("CREATE TABLE $L.b (i INTEGER)");
  for (int round = 0; round < 2; ++round) {
    RunBoth("INSERT INTO $L.b VALUES (1)");
    RunBoth("INSERT INTO $L.a VALUES (2)");
  }
  const std::string files = "SELECT data_file_id, table_id FROM $M.ducklake_data_file";
  EXPECT_EQ(SameOnBoth(files), (Rows{{"0", "2"}, {"1", "1"}, {"2", "2"}, {"3", "1"}}));
  RunBoth("CALL ducklake_merge_adjacent_files('$L', 'b')");
  const Rows merged = SameOnBoth(files);
  ASSERT_FALSE(merged.empty());
  EXPECT_EQ(merged.back()[1], "2");  // the merged file of b comes last
}

}  // namespace
}  // namespace moraine
