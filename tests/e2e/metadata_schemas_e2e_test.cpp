// Several DuckLake lakes in one moraine store, one per METADATA_SCHEMA (as
// DuckLake keeps them in one PostgreSQL or DuckDB database): the first
// schema's catalog is the store's own, every other one is nested in it
// (store/nested_catalog_location.h). Each lake sees only its own tables and
// rows, before and after a re-attach and a restart, natively and through
// DuckLake's SQL alike.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ducklake_adapter/native_metadata_manager.h"
#include "support/ducklake_session.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

class MetadataSchemas : public ::testing::Test {
 protected:
  // `files`: the name of the lake's data directory (default: the lake's).
  std::string Attach(const std::string& lake, const std::string& schema,
                     const std::string& extra = "", const std::string& files = "") {
    std::string sql = "ATTACH 'ducklake:moraine:" + dir_.path("lake.moraine") + "' AS " + lake +
                      " (DATA_PATH '" + dir_.path("files_" + (files.empty() ? lake : files)) + "/'";
    if (!schema.empty()) sql += ", METADATA_SCHEMA '" + schema + "'";
    return sql + extra + ")";
  }

  TempDir dir_;
};

TEST_F(MetadataSchemas, EachSchemaHoldsItsOwnLake) {
  {
    DuckLakeSession session;
    session.Run(Attach("one", "metadata_s1"));
    session.Run("CREATE TABLE one.tbl(i INTEGER)");
    session.Run("INSERT INTO one.tbl VALUES (42)");
    session.Run("DETACH one");
    session.Run(Attach("two", "metadata_s2"));
    session.Run("CREATE TABLE two.tbl(s VARCHAR)");
    session.Run("INSERT INTO two.tbl VALUES ('hello world')");
    // Both attached at once, each with its own rows and snapshots.
    session.Run(Attach("one", "metadata_s1"));
    EXPECT_EQ(session.Query("SELECT * FROM one.tbl"), (Rows{{"42"}}));
    EXPECT_EQ(session.Query("SELECT * FROM two.tbl"), (Rows{{"hello world"}}));
    session.Run("INSERT INTO two.tbl VALUES ('again')");
    EXPECT_EQ(session.Query("SELECT count(*) FROM one.snapshots()"), (Rows{{"3"}}));
    EXPECT_EQ(session.Query("SELECT count(*) FROM two.snapshots()"), (Rows{{"4"}}));
  }
  // A new process: the nested catalog is found by its name again, and a lake
  // attached without METADATA_SCHEMA is the store's own.
  DuckLakeSession session;
  session.Run(Attach("two", "metadata_s2"));
  EXPECT_EQ(session.Query("SELECT * FROM two.tbl ORDER BY ALL"),
            (Rows{{"again"}, {"hello world"}}));
  session.Run(Attach("first", "", "", "one"));
  EXPECT_EQ(session.Query("SELECT * FROM first.tbl"), (Rows{{"42"}}));
  session.Run("ATTACH 'moraine:" + dir_.path("lake.moraine") + "' AS m (TYPE moraine)");
  EXPECT_EQ(session.Query("SELECT schema_name FROM duckdb_schemas() WHERE database_name = 'm' "
                          "ORDER BY ALL"),
            (Rows{{"metadata_s1"}, {"metadata_s2"}}));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.path("lake.moraine/schemas/metadata_s2")));
}

TEST_F(MetadataSchemas, TheNativeManagerServesANestedLakeAsDuckLakesSqlDoes) {
  Rows native, sql;
  for (const std::string& options : {std::string(""), std::string(", META_NATIVE_MANAGER false")}) {
    DuckLakeSession session;
    const std::string lake = options.empty() ? "native" : "plain";
    session.Run(Attach("base_" + lake, "root_" + lake));
    session.Run("CREATE TABLE base_" + lake + ".t(a INTEGER)");
    session.Run(Attach(lake, "nested_" + lake, options));
    const auto before = ducklake_adapter::NativeMetadataManager::CurrentStatus();
    session.Run("CREATE TABLE " + lake + ".t(a INTEGER, b VARCHAR)");
    session.Run("INSERT INTO " + lake + ".t VALUES (1, 'x'), (2, 'y')");
    session.Run("ALTER TABLE " + lake + ".t ADD COLUMN c DOUBLE");
    session.Run("INSERT INTO " + lake + ".t VALUES (3, 'z', 1.5)");
    const auto after = ducklake_adapter::NativeMetadataManager::CurrentStatus();
    if (options.empty()) {
      EXPECT_GT(after.native_snapshot_reads, before.native_snapshot_reads);
      EXPECT_GT(after.native_catalog_reads, before.native_catalog_reads);
    } else {
      EXPECT_EQ(after.native_snapshot_reads, before.native_snapshot_reads);
    }
    auto rows = session.Query("SELECT * FROM " + lake + ".t ORDER BY a");
    auto& into = options.empty() ? native : sql;
    into = rows;
    EXPECT_EQ(session.Query("SELECT count(*) FROM base_" + lake + ".t"), (Rows{{"0"}}));
  }
  EXPECT_EQ(native, (Rows{{"1", "x", "NULL"}, {"2", "y", "NULL"}, {"3", "z", "1.5"}}));
  EXPECT_EQ(native, sql);
}

TEST_F(MetadataSchemas, OneTransactionWritesTheCatalogOfOneSchema) {
  DuckLakeSession session;
  session.Run(Attach("one", "metadata_s1"));
  session.Run(Attach("two", "metadata_s2"));
  session.Run("DETACH one");
  session.Run("DETACH two");
  session.Run("ATTACH 'moraine:" + dir_.path("lake.moraine") + "' AS m (TYPE moraine)");
  session.Run("BEGIN");
  session.Run("INSERT INTO m.metadata_s1.ducklake_metadata VALUES ('k1', 'v', NULL, NULL)");
  session.Run("INSERT INTO m.metadata_s2.ducklake_metadata VALUES ('k2', 'v', NULL, NULL)");
  const std::string error = session.Error("COMMIT");
  EXPECT_NE(error.find("two metadata schemas"), std::string::npos) << error;
  EXPECT_EQ(session.Query("SELECT count(*) FROM m.metadata_s1.ducklake_metadata WHERE key LIKE "
                          "'k_'"),
            (Rows{{"0"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM m.metadata_s2.ducklake_metadata WHERE key LIKE "
                          "'k_'"),
            (Rows{{"0"}}));
}

TEST_F(MetadataSchemas, AReadOnlyAttachOfANewSchemaIsRefusedAndCreatesNothing) {
  {
    DuckLakeSession session;
    session.Run(Attach("one", "metadata_s1"));
    session.Run("CREATE TABLE one.t(i INTEGER)");
  }
  DuckLakeSession session;
  const std::string error = session.Error(Attach("two", "metadata_s2", ", READ_ONLY"));
  // DuckLake's own words: a read-only attach does not create a lake.
  EXPECT_NE(error.find("does not exist - and creating a new DuckLake is explicitly disabled"),
            std::string::npos)
      << error;
  EXPECT_FALSE(std::filesystem::exists(dir_.path("lake.moraine/schemas")))
      << "a refused read-only attach made a nested store: " << error;
  session.Run(Attach("one", "metadata_s1"));
  EXPECT_EQ(session.Query("SELECT count(*) FROM one.t"), (Rows{{"0"}}));
}

TEST_F(MetadataSchemas, EveryNestedStoreVerifies) {
  {
    DuckLakeSession session;
    session.Run(Attach("one", "metadata_s1"));
    session.Run("CREATE TABLE one.t AS SELECT range AS id FROM range(10)");
    session.Run(Attach("two", "Other Schema"));
    session.Run("CREATE TABLE two.t AS SELECT range AS id FROM range(20)");
  }
  const std::string nested = dir_.path("lake.moraine/schemas/other-20schema");
  ASSERT_TRUE(std::filesystem::is_directory(nested));
  for (const auto& store : {dir_.path("lake.moraine"), nested}) {
    const auto verified =
        RunCommand(std::string(MORAINE_EXECUTABLE) + " verify '" + store + "' 2>&1");
    EXPECT_EQ(verified.exit_code, 0) << store << "\n" << verified.output;
  }
}

TEST(MetadataSchemasInMemory, ANamedMemoryStoreHoldsSeveralLakes) {
  TempDir dir;
  DuckLakeSession session;
  for (const std::string lake : {"one", "two"}) {
    session.Run("ATTACH 'ducklake:moraine:memory://metadata_schemas' AS " + lake + " (DATA_PATH '" +
                dir.path(lake) + "/', METADATA_SCHEMA 's_" + lake + "')");
    session.Run("CREATE TABLE " + lake + ".t AS SELECT '" + lake + "' AS name");
  }
  EXPECT_EQ(session.Query("SELECT * FROM one.t UNION ALL SELECT * FROM two.t"),
            (Rows{{"one"}, {"two"}}));
}

}  // namespace
}  // namespace moraine::test
