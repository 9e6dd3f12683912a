// Upstream DuckLake tests that once failed on moraine, replayed as their
// minimal SQL on a moraine lake beside a stock lake (DuckLake's own DuckDB-file
// catalog) in one session:
//   - catalog/quoted_identifiers.test, transaction/transaction_schema.test:
//     METADATA_SCHEMA (and METADATA_CATALOG), quoted names, persistence of the
//     schema name, and one catalog per store;
//   - macros/test_simple_macro.test: ended and live ducklake_macro rows in
//     insertion order;
//   - remove_orphans/metadata_in_data_path.test: a moraine store inside the
//     data path survives ducklake_delete_orphaned_files;
//   - add_files/add_file_partitioned.test: DuckLake 1.5.5 writes duplicate
//     ducklake_file_partition_value rows; moraine refuses them, atomically.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "support/ducklake_session.h"
#include "support/lake_sql.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::Rows;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class UpstreamRegressionsB : public ::testing::Test {
 protected:
  std::string MoraineStore() const { return dir_.path("lake.moraine"); }
  std::string StockFile() const { return dir_.path("stock.db"); }

  static std::string On(const std::string& sql, const std::string& lake) {
    return test::OnLake(sql, lake);
  }

  // Attaches the moraine lake as `lake` and the stock one as `stock`, each
  // with its own data path and the same extra options.
  void AttachBoth(test::DuckLakeSession& session, const std::string& options = "") {
    session.Run("ATTACH 'ducklake:moraine:" + MoraineStore() + "' AS lake (DATA_PATH '" +
                dir_.path("lake_files") + "/'" + options + ")");
    session.Run("ATTACH 'ducklake:" + StockFile() + "' AS stock (DATA_PATH '" +
                dir_.path("stock_files") + "/'" + options + ")");
  }

  // Runs `sql` on both lakes; both must succeed.
  void RunBoth(test::DuckLakeSession& session, const std::string& sql) {
    session.Run(On(sql, "lake"));
    session.Run(On(sql, "stock"));
  }

  // The rows `sql` returns on moraine, checked equal to the stock lake's.
  Rows SameOnBoth(test::DuckLakeSession& session, const std::string& sql) {
    Rows moraine = session.Query(On(sql, "lake"));
    EXPECT_EQ(moraine, session.Query(On(sql, "stock"))) << sql;
    return moraine;
  }

  test::TempDir dir_;
};

// quoted_identifiers.test: DuckLake creates its METADATA_SCHEMA (any name) in
// the metadata catalog and keeps its tables there.
TEST_F(UpstreamRegressionsB, AQuotedMetadataSchemaAndCatalogServeTheLakeAcrossReattach) {
  const std::string options =
      ", METADATA_CATALOG '''quoted'' catalog \"name\"', METADATA_SCHEMA '''quoted'' catalog "
      "\"schema\"'";
  {
    test::DuckLakeSession session;
    session.Run("ATTACH 'ducklake:moraine:" + MoraineStore() + "' AS lake (DATA_PATH '" +
                dir_.path("lake_files") + "/'" + options + ")");
    session.Run(
        "CREATE TABLE lake.\"quoted 'table' \"\"name\"\"\"(\"quoted 'column' \"\"name\"\"\" "
        "INTEGER)");
    session.Run("INSERT INTO lake.\"quoted 'table' \"\"name\"\"\" VALUES (7)");
    EXPECT_EQ(session.Query("SELECT count(*) FROM \"'quoted' catalog \"\"name\"\"\"."
                            "\"'quoted' catalog \"\"schema\"\"\".ducklake_snapshot"),
              (Rows{{"3"}}));
  }
  test::DuckLakeSession session;  // a new process view of the same store
  session.Run("ATTACH 'ducklake:moraine:" + MoraineStore() + "' AS lake" + " (DATA_PATH '" +
              dir_.path("lake_files") + "/'" + options + ")");
  EXPECT_EQ(session.Query("SELECT \"quoted 'column' \"\"name\"\"\" FROM lake.\"quoted 'table' "
                          "\"\"name\"\"\""),
            (Rows{{"7"}}));
  session.Run("DROP TABLE lake.\"quoted 'table' \"\"name\"\"\"");
}

// transaction_schema.test keeps two lakes in one metadata database under two
// schemas. A moraine store serves the second schema's lake from a catalog
// nested in it, and the first lake is unharmed.
TEST_F(UpstreamRegressionsB, AStoreServesEachMetadataSchemaAsALakeOfItsOwn) {
  const std::string attach = "ATTACH 'ducklake:moraine:" + MoraineStore() + "' AS ";
  {
    test::DuckLakeSession session;
    session.Run(attach + "ducklake_1 (DATA_PATH '" + dir_.path("s1") +
                "', METADATA_SCHEMA 'metadata_s1')");
    session.Run("CREATE TABLE ducklake_1.tbl(i INTEGER)");
    session.Run("INSERT INTO ducklake_1.tbl VALUES (42)");
    session.Run("DETACH ducklake_1");

    session.Run(attach + "ducklake_2 (DATA_PATH '" + dir_.path("s2") +
                "', METADATA_SCHEMA 'metadata_s2')");
    session.Run("CREATE TABLE ducklake_2.tbl(s VARCHAR)");
    session.Run("INSERT INTO ducklake_2.tbl VALUES ('hello world')");
    EXPECT_EQ(session.Query("FROM ducklake_2.tbl"), (Rows{{"hello world"}}));
    // Without METADATA_SCHEMA DuckLake names no schema, so it finds the
    // store's own lake, the first.
    session.Run(attach + "ducklake_3 (DATA_PATH '" + dir_.path("s1") + "')");
    EXPECT_EQ(session.Query("FROM ducklake_3.tbl"), (Rows{{"42"}}));
  }
  test::DuckLakeSession session;
  session.Run(attach + "ducklake_1 (DATA_PATH '" + dir_.path("s1") +
              "', METADATA_SCHEMA 'metadata_s1')");
  EXPECT_EQ(session.Query("FROM ducklake_1.tbl"), (Rows{{"42"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM __ducklake_metadata_ducklake_1.ducklake_snapshot"),
            (Rows{{"3"}}));
  EXPECT_EQ(session.Query(
                "SELECT count(*) FROM __ducklake_metadata_ducklake_1.metadata_s1.ducklake_table"),
            (Rows{{"1"}}));
  auto main =
      session.Error("SELECT count(*) FROM __ducklake_metadata_ducklake_1.main.ducklake_table");
  EXPECT_TRUE(Contains(main, "schema \"main\" does not exist")) << main;
}

// A lake without METADATA_SCHEMA keeps `main`.
TEST_F(UpstreamRegressionsB, ALakeWithoutMetadataSchemaKeepsMain) {
  test::DuckLakeSession session;
  AttachBoth(session);
  RunBoth(session, "CREATE TABLE $L.t (i INTEGER)");
  SameOnBoth(session, "SELECT schema_name FROM duckdb_schemas() WHERE database_name = '$M'");
  SameOnBoth(session, "SELECT count(*) FROM $M.main.ducklake_table");
}

// test_simple_macro.test reads ducklake_macro without ORDER BY after a DROP
// and re-CREATE: the ended version (macro 1) comes before the live one.
TEST_F(UpstreamRegressionsB, DroppedAndRecreatedMacroRowsComeBackInInsertionOrder) {
  test::DuckLakeSession session;
  AttachBoth(session);
  RunBoth(session, "CREATE MACRO $L.simple(a) AS a");
  RunBoth(session, "DROP MACRO $L.simple");
  RunBoth(session, "CREATE MACRO $L.simple(a) AS a");
  EXPECT_EQ(SameOnBoth(session, "FROM $M.ducklake_macro"),
            (Rows{{"0", "1", "simple", "1", "2"}, {"0", "2", "simple", "3", "NULL"}}));
}

// metadata_in_data_path.test globs `*.db` for DuckLake's metadata file; a
// moraine store is a directory. What the test protects holds: orphan cleanup
// considers only `*.parquet` files, so the store inside the data path loses
// nothing and the lake still opens.
TEST_F(UpstreamRegressionsB, AStoreInsideTheDataPathSurvivesOrphanCleanup) {
  const std::string data_path = dir_.path("data");
  const std::string store = data_path + "/meta.moraine";
  const std::string attach =
      "ATTACH 'ducklake:moraine:" + store + "' AS lake (DATA_PATH '" + data_path + "')";
  auto store_files = [&] {
    std::set<std::string> files;
    for (auto& entry : std::filesystem::recursive_directory_iterator(store)) {
      files.insert(entry.path().filename().string());
    }
    return files;
  };
  std::set<std::string> before;
  {
    test::DuckLakeSession session;
    session.Run(attach);
    session.Run("CREATE TABLE lake.test (a INTEGER)");
    session.Run("INSERT INTO lake.test VALUES (1)");
    session.Run("CALL ducklake_flush_inlined_data('lake')");
    EXPECT_EQ(session.Query("SELECT count(*) FROM GLOB('" + data_path + "/**/*.parquet')"),
              (Rows{{"1"}}));
    before = store_files();
    session.Run("CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)");
    EXPECT_EQ(store_files(), before);
    EXPECT_EQ(session.Query("SELECT count(*) FROM GLOB('" + data_path + "/**/*.parquet')"),
              (Rows{{"1"}}));
  }
  EXPECT_TRUE(before.count("CURRENT")) << "not a RocksDB directory";
  test::DuckLakeSession session;
  session.Run(attach);
  EXPECT_EQ(session.Query("FROM lake.test"), (Rows{{"1"}}));
}

// add_file_partitioned.test adds a file to a table partitioned by year(dt),
// month(dt), day(dt). DuckLake 1.5.5 maps partition keys by column, so all
// three values get partition_key_index 2 (fixed upstream after the pin, commit
// fda045ba "Track add-files hive partition key indexes"). The stock catalog
// stores the three colliding rows; moraine keys the row by its identity and
// refuses the commit, writing nothing. If this starts failing, the pinned
// DuckLake has changed: re-check the upstream test.
TEST_F(UpstreamRegressionsB, DuckLakesCollidingPartitionKeyIndexesAreRefusedAtomically) {
  test::DuckLakeSession session;
  AttachBoth(session);
  RunBoth(session, "CREATE TABLE $L.t (id INT, value VARCHAR, dt DATE)");
  RunBoth(session, "ALTER TABLE $L.t SET PARTITIONED BY (year(dt), month(dt), day(dt))");
  for (const std::string lake : {"lake", "stock"}) {
    const std::string dir = dir_.path(lake + "_files") + "/main/t/year=2024/month=2/day=10";
    std::filesystem::create_directories(dir);
    session.Run("COPY (SELECT 10 AS id, 'x' AS value, '2024-02-10'::DATE AS dt) TO '" + dir +
                "/full_match.parquet' (FORMAT parquet)");
  }
  const std::string add = "CALL ducklake_add_data_files('$L', 't', '" + dir_.path("$L_files") +
                          "/main/t/year=2024/month=2/day=10/full_match.parquet')";
  session.Run(On(add, "stock"));
  EXPECT_EQ(session.Query("SELECT partition_key_index, partition_value FROM "
                          "__ducklake_metadata_stock.ducklake_file_partition_value"),
            (Rows{{"2", "2024"}, {"2", "2"}, {"2", "10"}}));

  const int64_t head = session.Head("lake");
  auto error = session.Error(On(add, "lake"));
  EXPECT_TRUE(Contains(error, "duplicate row identity in ducklake_file_partition_value")) << error;
  EXPECT_EQ(session.Head("lake"), head);
  EXPECT_EQ(session.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_data_file"),
            (Rows{{"0"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (Rows{{"0"}}));
}

}  // namespace
}  // namespace moraine
