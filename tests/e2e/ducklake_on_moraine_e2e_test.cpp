// A stock DuckLake driven over a moraine catalog: real DuckDB, the pinned
// DuckLake binary, the moraine shim and a RocksDB store in a temp directory.
// Every statement DuckLake sends to its catalog goes through the shim's
// scans, DML operators and transactions into commit::RowTransaction.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duckdb.hpp"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "support/store_format_record.h"

namespace moraine {
namespace {

using test::Rows;
using Session = test::DuckLakeSession;

class DuckLakeOnMoraine : public test::MoraineLakeTest {
 protected:
  size_t ParquetFiles() const {
    size_t count = 0;
    if (!std::filesystem::exists(Files())) return 0;
    for (auto& entry : std::filesystem::recursive_directory_iterator(Files())) {
      if (entry.path().extension() == ".parquet") count++;
    }
    return count;
  }
};

TEST_F(DuckLakeOnMoraine, AttachInitializesTheCatalog) {
  Session s;
  s.Run(AttachLake());
  auto version =
      s.Query("SELECT value FROM __ducklake_metadata_lake.ducklake_metadata WHERE key = 'version'");
  ASSERT_EQ(version, (Rows{{"1.0"}}));
  EXPECT_EQ(s.Head(), 0);
  EXPECT_EQ(s.Query("SELECT schema_name FROM __ducklake_metadata_lake.ducklake_schema"),
            (Rows{{"main"}}));
}

TEST_F(DuckLakeOnMoraine, InlinedAndParquetInsertsReadBack) {
  Session s;
  s.Run(AttachLake());
  s.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR)");
  s.Run("INSERT INTO lake.t VALUES (1, 'one'), (2, 'two'), (3, NULL)");
  EXPECT_EQ(ParquetFiles(), 0u) << "three rows stay inlined in the catalog";
  EXPECT_EQ(s.Query("SELECT id, name FROM lake.t ORDER BY id"),
            (Rows{{"1", "one"}, {"2", "two"}, {"3", "NULL"}}));

  s.Run("INSERT INTO lake.t SELECT i, 'n' || i FROM range(100, 150) r(i)");
  EXPECT_GE(ParquetFiles(), 1u) << "fifty rows go to a Parquet file";
  EXPECT_EQ(s.Query("SELECT count(*), sum(id), count(name) FROM lake.t"),
            (Rows{{"53", "6231", "52"}}));
  EXPECT_EQ(s.Query("SELECT name FROM lake.t WHERE id = 149"), (Rows{{"n149"}}));
  EXPECT_EQ(s.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_data_file"),
            (Rows{{"1"}}));
}

TEST_F(DuckLakeOnMoraine, UpdateAndDeleteInlinedAndParquetRows) {
  Session s;
  s.Run(AttachLake());
  s.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR)");
  s.Run("INSERT INTO lake.t VALUES (1, 'one'), (2, 'two'), (3, 'three')");
  s.Run("INSERT INTO lake.t SELECT i, 'n' || i FROM range(100, 150) r(i)");

  // Regression: an inlined UPDATE ends row_id 0's version and inserts a new
  // version under the same row_id; the store once refused it as a duplicate.
  s.Run("UPDATE lake.t SET name = 'uno' WHERE id = 1");
  s.Run("DELETE FROM lake.t WHERE id = 2");
  s.Run("UPDATE lake.t SET name = 'changed' WHERE id = 120");
  s.Run("DELETE FROM lake.t WHERE id >= 140");

  EXPECT_EQ(s.Query("SELECT id, name FROM lake.t WHERE id < 100 ORDER BY id"),
            (Rows{{"1", "uno"}, {"3", "three"}}));
  EXPECT_EQ(s.Query("SELECT name FROM lake.t WHERE id = 120"), (Rows{{"changed"}}));
  EXPECT_EQ(s.Query("SELECT count(*) FROM lake.t"), (Rows{{"42"}}));
}

TEST_F(DuckLakeOnMoraine, NestedTypesRoundTripThroughInlinedRows) {
  Session s;
  s.Run(AttachLake());
  s.Run(
      "CREATE TABLE lake.n (id INTEGER, s STRUCT(a INTEGER, b VARCHAR), l INTEGER[], "
      "m MAP(VARCHAR, INTEGER), d DATE, x DOUBLE)");
  s.Run(
      "INSERT INTO lake.n VALUES (1, {'a': 1, 'b': 'x'}, [1, 2, NULL], MAP {'k': 7}, "
      "DATE '2024-02-29', 1.5), (2, NULL, [], NULL, NULL, NULL)");
  EXPECT_EQ(s.Query("SELECT id, s, l, m, d, x FROM lake.n ORDER BY id"),
            (Rows{{"1", "{'a': 1, 'b': x}", "[1, 2, NULL]", "{k=7}", "2024-02-29", "1.5"},
                  {"2", "NULL", "[]", "NULL", "NULL", "NULL"}}));
  EXPECT_EQ(s.Query("SELECT count(*) FROM lake.n WHERE s IS NULL"), (Rows{{"1"}}));
}

TEST_F(DuckLakeOnMoraine, SchemaEvolutionAndTimeTravel) {
  Session s;
  s.Run(AttachLake());
  s.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR)");
  s.Run("INSERT INTO lake.t VALUES (1, 'one'), (2, 'two')");
  const int64_t before_alter = s.Head();

  s.Run("ALTER TABLE lake.t ADD COLUMN status VARCHAR DEFAULT 'new'");
  EXPECT_EQ(s.Query("SELECT id, name, status FROM lake.t ORDER BY id"),
            (Rows{{"1", "one", "new"}, {"2", "two", "new"}}));
  s.Run("INSERT INTO lake.t (id, name) VALUES (3, 'three')");
  EXPECT_EQ(s.Query("SELECT status FROM lake.t WHERE id = 3"), (Rows{{"new"}}));

  s.Run("ALTER TABLE lake.t RENAME COLUMN name TO label");
  const int64_t after_rename = s.Head();
  s.Run("ALTER TABLE lake.t DROP COLUMN status");
  s.Run("ALTER TABLE lake.t ALTER COLUMN id SET TYPE BIGINT");

  EXPECT_EQ(s.Query("SELECT column_name, column_type FROM (DESCRIBE lake.t)"),
            (Rows{{"id", "BIGINT"}, {"label", "VARCHAR"}}));
  EXPECT_EQ(s.Query("SELECT id, label FROM lake.t ORDER BY id"),
            (Rows{{"1", "one"}, {"2", "two"}, {"3", "three"}}));

  // The older schema and data come back at an older version.
  EXPECT_EQ(s.Query("SELECT * FROM lake.t AT (VERSION => " + std::to_string(before_alter) +
                    ") ORDER BY id"),
            (Rows{{"1", "one"}, {"2", "two"}}));
  EXPECT_EQ(s.Query("SELECT id, label, status FROM lake.t AT (VERSION => " +
                    std::to_string(after_rename) + ") ORDER BY id"),
            (Rows{{"1", "one", "new"}, {"2", "two", "new"}, {"3", "three", "new"}}));

  // The metadata catalog is addressable: the rename ended a column version.
  auto ended = s.Query(
      "SELECT column_name, end_snapshot FROM __ducklake_metadata_lake.ducklake_column "
      "WHERE column_name = 'name'");
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0][1], std::to_string(after_rename));
  EXPECT_EQ(s.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_column "
                    "WHERE column_name = 'label' AND end_snapshot IS NULL"),
            (Rows{{"1"}}));
}

TEST_F(DuckLakeOnMoraine, DetachReattachAndRestartKeepEverything) {
  const Rows expected = {{"1", "one"}, {"2", "two"}, {"100", "n100"}};
  {
    Session s;
    s.Run(AttachLake());
    s.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR)");
    s.Run("INSERT INTO lake.t VALUES (1, 'one'), (2, 'two')");
    s.Run("INSERT INTO lake.t SELECT i, 'n' || i FROM range(100, 120) r(i)");
    s.Run("DETACH lake");
    s.Run(AttachLake());
    EXPECT_EQ(s.Query("SELECT id, name FROM lake.t WHERE id <= 100 ORDER BY id"), expected);
    // A second lake on the same store in the same process shares its handle.
    s.Run("ATTACH 'ducklake:moraine:" + Store() + "' AS lake2");
    EXPECT_EQ(s.Query("SELECT count(*) FROM lake2.t"), (Rows{{"22"}}));
  }
  Session restarted;
  restarted.Run(AttachLake());
  EXPECT_EQ(restarted.Query("SELECT id, name FROM lake.t WHERE id <= 100 ORDER BY id"), expected);
  restarted.Run("INSERT INTO lake.t VALUES (3, 'three')");
  EXPECT_EQ(restarted.Query("SELECT count(*) FROM lake.t"), (Rows{{"23"}}));
}

TEST_F(DuckLakeOnMoraine, StandaloneAttachReadsTheCatalogTables) {
  {
    Session s;
    s.Run(AttachLake());
    s.Run("CREATE TABLE lake.orders (id INTEGER)");
  }
  Session s;
  s.Run("ATTACH '" + Store() + "' AS m (TYPE moraine)");
  EXPECT_EQ(s.Query("SELECT table_name FROM m.ducklake_table WHERE end_snapshot IS NULL"),
            (Rows{{"orders"}}));
  EXPECT_EQ(s.Query("SELECT value FROM m.main.ducklake_metadata WHERE key = 'data_path'"),
            (Rows{{Files()}}));
}

TEST_F(DuckLakeOnMoraine, StoresOfAnotherFormatAreRefusedAndOlderOnesMigrate) {
  {
    Session s;
    s.Run(AttachLake());
    s.Run("CREATE TABLE lake.orders (id INTEGER)");
    s.Run("INSERT INTO lake.orders VALUES (7)");
  }
  test::WriteStoreFormat(Store(), 99);
  {
    Session s;
    auto error = s.Error(AttachLake());
    EXPECT_NE(error.find("format 99"), std::string::npos) << error;
    EXPECT_NE(error.find("format " + std::to_string(commit::kStoreFormatVersion)),
              std::string::npos)
        << error;
  }
  test::WriteStoreFormat(Store(), std::nullopt);  // a store from before the format record
  Session s;
  auto error = s.Error(AttachLake());
  EXPECT_NE(error.find("moraine_migrate"), std::string::npos) << error;
  EXPECT_EQ(s.Query("SELECT from_format, to_format FROM moraine_migrate('" + Store() + "')"),
            (Rows{{"0", std::to_string(commit::kStoreFormatVersion)}}));
  EXPECT_EQ(s.Query("SELECT from_format, to_format FROM moraine_migrate('" + Store() + "')"),
            (Rows{{std::to_string(commit::kStoreFormatVersion),
                   std::to_string(commit::kStoreFormatVersion)}}));
  s.Run(AttachLake());
  EXPECT_EQ(s.Query("SELECT id FROM lake.orders"), (Rows{{"7"}}));
}

TEST_F(DuckLakeOnMoraine, ReadOnlyAttachReadsButRefusesWrites) {
  {
    Session s;
    s.Run(AttachLake());
    s.Run("CREATE TABLE lake.t (id INTEGER)");
    s.Run("INSERT INTO lake.t VALUES (1), (2)");
  }
  Session s;
  s.Run(AttachLake(", READ_ONLY"));
  EXPECT_EQ(s.Query("SELECT count(*) FROM lake.t"), (Rows{{"2"}}));
  s.Error("INSERT INTO lake.t VALUES (3)");
}

TEST_F(DuckLakeOnMoraine, ConcurrentInsertsBothCommitThroughDuckLakeRetry) {
  Session s;
  s.Run(AttachLake());
  s.Run("CREATE TABLE lake.t (id INTEGER)");
  const auto conflict_checks = [&] {
    return std::stoll(s.Query("SELECT native_conflict_checks FROM moraine_native_manager()")[0][0]);
  };
  const auto checks_before = conflict_checks();
  auto& first = s.connection();
  duckdb::Connection second(*first.context->db);
  ASSERT_FALSE(second.Query("SET threads = 1")->HasError());
  s.Run("BEGIN");
  s.Run("INSERT INTO lake.t VALUES (1)");
  auto begin = second.Query("BEGIN");
  ASSERT_FALSE(begin->HasError()) << begin->GetError();
  auto insert = second.Query("INSERT INTO lake.t VALUES (2)");
  ASSERT_FALSE(insert->HasError()) << insert->GetError();
  s.Run("COMMIT");
  // The second commit lost the race on the catalog head; DuckLake sees
  // moraine's "conflict", checks that appends do not clash and retries.
  auto commit = second.Query("COMMIT");
  ASSERT_FALSE(commit->HasError()) << commit->GetError();
  EXPECT_EQ(s.Query("SELECT id FROM lake.t ORDER BY id"), (Rows{{"1"}, {"2"}}));
  // One re-check after the lost race (DuckLake's, answered from the store),
  // and the retry landed at the next snapshot: the lake holds exactly the
  // genesis, the CREATE and the two INSERTs.
  EXPECT_EQ(conflict_checks() - checks_before, 1);
  EXPECT_EQ(s.Query("SELECT list(snapshot_id ORDER BY snapshot_id) FROM "
                    "__ducklake_metadata_lake.ducklake_snapshot"),
            (Rows{{"[0, 1, 2, 3]"}}));
}

}  // namespace
}  // namespace moraine
