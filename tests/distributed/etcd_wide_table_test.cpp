// Issue #12: a commit's key count must not grow with a table's width. With
// one stats record per column, a one-row INSERT into a C-column table wrote
// about 2C+4 keys, so on an etcd cluster of default limits (128 operations
// per Txn) any INSERT into a table wider than ~62 columns failed. Through
// DuckLake SQL on `ducklake:moraine:etcd://...`, on a cluster with etcd's
// default limits.

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "distributed/etcd_store_fixture.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

class EtcdWideTableTest : public EtcdStoreFixture {
 protected:
  std::string Attach(const std::string& options = "") const {
    return "ATTACH 'ducklake:moraine:" + Location() + "' AS lake (DATA_PATH '" +
           files_.path("files") + "'" + options + ")";
  }
  // CREATE TABLE lake.wide (c0 BIGINT, ..., c<n-1> BIGINT).
  static std::string CreateWide(int columns) {
    std::string sql = "CREATE TABLE lake.wide (";
    for (int i = 0; i < columns; ++i) sql += (i ? ", c" : "c") + std::to_string(i) + " BIGINT";
    return sql + ")";
  }
  // One row: c<i> = row * 1000 + i.
  static std::string Row(int columns, int row) {
    std::string sql = "(";
    for (int i = 0; i < columns; ++i) sql += (i ? ", " : "") + std::to_string(row * 1000 + i);
    return sql + ")";
  }
  TempDir files_;
};

// DuckLake inlines a one-row insert: the table's column stats are the wide part.
TEST_F(EtcdWideTableTest, OneRowInsertIntoHundredColumnTableCommits) {
  DuckLakeSession session;
  session.Run(Attach());
  session.Run(CreateWide(100));
  session.Run("INSERT INTO lake.wide VALUES " + Row(100, 1));
  EXPECT_EQ(session.Query("SELECT count(*), sum(c0), sum(c99) FROM lake.wide"),
            (Rows{{"1", "1000", "1099"}}));
}

// Without inlining the row lands in a Parquet file: its column stats too.
TEST_F(EtcdWideTableTest, OneRowFileInsertIntoHundredColumnTableCommits) {
  {
    DuckLakeSession session;
    session.Run(Attach(", DATA_INLINING_ROW_LIMIT 0"));
    session.Run(CreateWide(100));
    session.Run("INSERT INTO lake.wide VALUES " + Row(100, 1));
    session.Run("INSERT INTO lake.wide VALUES " + Row(100, 2));
    EXPECT_EQ(session.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_data_file"),
              (Rows{{"2"}}));
  }
  DuckLakeSession again;
  again.Run(Attach());
  EXPECT_EQ(again.Query("SELECT count(*), sum(c0), max(c99) FROM lake.wide"),
            (Rows{{"2", "3000", "2099"}}));
  // The stats DuckLake prunes with are all there, one row per column.
  EXPECT_EQ(again.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_file_column_stats"),
            (Rows{{"200"}}));
  EXPECT_EQ(
      again.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_table_column_stats"),
      (Rows{{"100"}}));
  EXPECT_EQ(again.Query("SELECT count(*) FROM lake.wide WHERE c50 = 2050"), (Rows{{"1"}}));
}

// The keys a one-row INSERT puts do not depend on the table's width.
TEST_F(EtcdWideTableTest, AOneRowInsertPutsAsManyKeysIntoANarrowAndAWideTable) {
  DuckLakeSession session;
  session.Run(Attach(", DATA_INLINING_ROW_LIMIT 0"));
  std::vector<int64_t> keys;
  for (int columns : {3, 100}) {
    const std::string table = "w" + std::to_string(columns);
    std::string create = CreateWide(columns);
    create.replace(create.find("wide"), 4, table);
    session.Run(create);
    session.Run("INSERT INTO lake." + table + " VALUES " + Row(columns, 1));
    keys.push_back(cluster().KeysPutAt(cluster().Revision()));
    std::cout << "[ figures  ] one-row INSERT into " << columns << " columns: " << keys.back()
              << " keys put (data, commit token and commit marker)\n";
  }
  EXPECT_GT(keys[0], 0);
  EXPECT_EQ(keys[0], keys[1]);
}

}  // namespace
}  // namespace moraine::test
