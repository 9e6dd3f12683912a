// The DuckLake catalog version axis through SQL, with the pinned DuckLake:
// moraine_raise_catalog_version, the shape each attach is served, and what
// the pinned DuckLake does with a raised store.
#include <gtest/gtest.h>

#include <string>

#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"

namespace moraine {
namespace {

class CatalogVersionE2e : public test::MoraineLakeTest {
 protected:
  std::string AttachStandalone(const std::string& alias) const {
    return "ATTACH '" + Store() + "' AS " + alias + " (TYPE moraine)";
  }
  static std::string Raise(const std::string& lake, const std::string& arguments = "") {
    return "SELECT from_version, to_version FROM moraine_raise_catalog_version('" + lake + "'" +
           arguments + ")";
  }
  static std::string CountTables(const std::string& catalog) {
    return "SELECT count(*) FROM duckdb_tables() WHERE database_name = '" + catalog +
           "' AND NOT regexp_matches(table_name, '^ducklake_inlined_(data|delete)_[0-9]')";
  }
  static std::string Columns(const std::string& catalog, const std::string& table) {
    return "SELECT string_agg(column_name, ',' ORDER BY column_index) FROM duckdb_columns() "
           "WHERE database_name = '" +
           catalog + "' AND table_name = '" + table + "'";
  }
  // DuckDB's table listings skip DuckLake's own metadata catalog, so its
  // shape is probed by reading what only 1.1 has.
  static void ExpectShape1_0(test::DuckLakeSession& session, const std::string& catalog) {
    EXPECT_NE(session.Error("SELECT * FROM " + catalog + ".ducklake_view_column_tag")
                  .find("does not exist"),
              std::string::npos);
    EXPECT_NE(session.Error("SELECT row_group_count FROM " + catalog + ".ducklake_data_file")
                  .find("row_group_count"),
              std::string::npos);
  }
  static std::string Version(const std::string& catalog) {
    return "SELECT value FROM " + catalog + ".ducklake_metadata WHERE key = 'version'";
  }

  // A lake with a table, a view and data, made by the pinned DuckLake.
  void MakeLake() {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1), (2)");
    session.Run("CREATE VIEW lake.v AS SELECT i FROM lake.t");
  }
};

TEST_F(CatalogVersionE2e, DuckLakeCreatesStoresAt1_0AndItsOptionPathCannotMoveTheVersion) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  EXPECT_EQ(session.Query(Version("__ducklake_metadata_lake")), (test::Rows{{"1.0"}}));
  ExpectShape1_0(session, "__ducklake_metadata_lake");

  // DuckLake's own option path refuses the key before it reaches a catalog.
  EXPECT_NE(session.Error("CALL ducklake_set_option('lake', 'version', '1.1')")
                .find("Unsupported option version"),
            std::string::npos);
  // Writing the row directly reaches moraine, which reserves it.
  const std::string meta = "__ducklake_metadata_lake.ducklake_metadata";
  for (const std::string& write : {"INSERT INTO " + meta + " VALUES ('version', '1.1', NULL, NULL)",
                                   "DELETE FROM " + meta + " WHERE key = 'version'",
                                   "UPDATE " + meta + " SET value = '1.1' WHERE key = 'version'"}) {
    const std::string error = session.Error(write);
    EXPECT_NE(error.find("Constraint Error"), std::string::npos) << write << ": " << error;
    EXPECT_NE(error.find("reserved"), std::string::npos) << write << ": " << error;
  }
  EXPECT_EQ(session.Query(Version("__ducklake_metadata_lake")), (test::Rows{{"1.0"}}));
}

TEST_F(CatalogVersionE2e, ADryRunAndAnUnconfirmedRaiseRecordNothing) {
  MakeLake();
  test::DuckLakeSession session;
  session.Run(AttachLake());
  EXPECT_EQ(session.Query(Raise("lake", ", dry_run => true")), (test::Rows{{"1.0", "1.1"}}));
  const std::string refused = session.Error(Raise("lake"));
  EXPECT_NE(refused.find("dry_run => true"), std::string::npos) << refused;
  EXPECT_NE(refused.find("confirm => true"), std::string::npos) << refused;
  EXPECT_NE(session.Error(Raise("lake", ", confirm => false")).find("dry_run"), std::string::npos);
  session.Run("DETACH lake");

  // Nothing was recorded: the pinned DuckLake still opens the store.
  session.Run(AttachLake());
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (test::Rows{{"2"}}));
  session.Run(AttachStandalone("m"));
  EXPECT_EQ(session.Query(Version("m")), (test::Rows{{"1.0"}}));
  EXPECT_EQ(session.Query(CountTables("m")), (test::Rows{{"28"}}));
}

TEST_F(CatalogVersionE2e, ARaiseWidensLaterAttachesAndNeverTheSessionThatMadeIt) {
  MakeLake();
  test::DuckLakeSession session;
  session.Run(AttachLake());
  EXPECT_EQ(session.Query(Raise("lake", ", confirm => true")), (test::Rows{{"1.0", "1.1"}}));
  EXPECT_EQ(session.Query(Raise("lake", ", confirm => true")), (test::Rows{{"1.1", "1.1"}}));

  // The session that raised keeps the 1.0 shape, and DuckLake keeps working in it.
  ExpectShape1_0(session, "__ducklake_metadata_lake");
  session.Run("INSERT INTO lake.t VALUES (3)");
  session.Run("CALL ducklake_flush_inlined_data('lake')");
  EXPECT_EQ(session.Query("SELECT sum(i) FROM lake.t"), (test::Rows{{"6"}}));

  // A later attach is served the 1.1 shape.
  session.Run(AttachStandalone("m"));
  EXPECT_EQ(session.Query(Version("m")), (test::Rows{{"1.1"}}));
  EXPECT_EQ(session.Query(CountTables("m")), (test::Rows{{"29"}}));
  EXPECT_EQ(session.Query(Columns("m", "ducklake_view_column_tag")),
            (test::Rows{{"view_id,column_name,begin_snapshot,end_snapshot,key,value"}}));
  EXPECT_EQ(session.Query(Columns("m", "ducklake_data_file")),
            (test::Rows{{"data_file_id,table_id,begin_snapshot,end_snapshot,file_order,path,"
                         "path_is_relative,file_format,record_count,file_size_bytes,footer_size,"
                         "row_id_start,partition_id,encryption_key,mapping_id,partial_max,"
                         "row_group_count"}}));
  EXPECT_EQ(session.Query(Columns("m", "ducklake_schema")),
            (test::Rows{{"schema_id,schema_uuid,begin_snapshot,end_snapshot,schema_name,path,"
                         "path_is_relative,parent_schema_id"}}));
  EXPECT_EQ(session.Query("SELECT count(*), count(parent_schema_id) FROM m.ducklake_schema"),
            (test::Rows{{"1", "0"}}));
  for (const char* table : {"ducklake_file_column_stats", "ducklake_table_column_stats"}) {
    const auto columns = session.Query(Columns("m", table));
    ASSERT_EQ(columns.size(), 1u);
    EXPECT_TRUE(columns[0][0].ends_with(",min_is_exact,max_is_exact")) << columns[0][0];
  }
  EXPECT_TRUE(
      session.Query(Columns("m", "ducklake_delete_file"))[0][0].ends_with(",row_group_count"));
  // The rows DuckLake wrote survive the raise, now with the wider columns.
  EXPECT_EQ(session.Query("SELECT count(*), count(row_group_count) FROM m.ducklake_data_file"),
            (test::Rows{{"1", "0"}}));
  // The standalone attach raises nothing by itself and reads as 1.1 from now on.
  EXPECT_EQ(session.Query(Raise("m", ", dry_run => true")), (test::Rows{{"1.1", "1.1"}}));
}

TEST_F(CatalogVersionE2e, ThePinnedDuckLakeRefusesARaisedStoreAtItsOwnVersionCheck) {
  MakeLake();
  {
    test::DuckLakeSession session;
    session.Run(AttachStandalone("m"));
    EXPECT_EQ(session.Query(Raise("m", ", confirm => true")), (test::Rows{{"1.0", "1.1"}}));
  }
  test::DuckLakeSession session;
  std::string error = session.Error(AttachLake());
  EXPECT_NE(error.find("catalog version mismatch: catalog version is 1.1, but the extension "
                       "requires version 1.0"),
            std::string::npos)
      << error;
  error = session.Error(AttachLake(", AUTOMATIC_MIGRATION true"));
  EXPECT_NE(error.find("Only DuckLake versions 0.1, 0.2, 0.3-dev1, 0.3, 0.4-dev1, 0.4, 1.0 are "
                       "supported"),
            std::string::npos)
      << error;
  // Refusing changed nothing: the store still reads as 1.1, rows intact.
  session.Run(AttachStandalone("m"));
  EXPECT_EQ(session.Query(Version("m")), (test::Rows{{"1.1"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM m.ducklake_table"), (test::Rows{{"1"}}));
}

TEST_F(CatalogVersionE2e, ViewColumnTagsLiveAndEndWithoutVersioningTheirView) {
  MakeLake();
  test::DuckLakeSession session;
  session.Run(AttachStandalone("m"));
  session.Run("SELECT * FROM moraine_raise_catalog_version('m', confirm => true)");
  session.Run("DETACH m");
  session.Run(AttachStandalone("m"));
  const auto views = session.Query("SELECT * FROM m.ducklake_view ORDER BY ALL");
  ASSERT_EQ(views.size(), 1u);
  const std::string view_id = views[0][0];

  session.Run("INSERT INTO m.ducklake_view_column_tag VALUES (" + view_id +
              ", 'i', 3, NULL, 'comment', 'first')");
  session.Run("UPDATE m.ducklake_view_column_tag SET end_snapshot = 4 WHERE view_id = " + view_id +
              " AND end_snapshot IS NULL");
  session.Run("INSERT INTO m.ducklake_view_column_tag VALUES (" + view_id +
              ", 'i', 4, NULL, 'comment', 'second')");
  EXPECT_EQ(session.Query("SELECT column_name, begin_snapshot, end_snapshot, value FROM "
                          "m.ducklake_view_column_tag ORDER BY begin_snapshot"),
            (test::Rows{{"i", "3", "4", "first"}, {"i", "4", "NULL", "second"}}));
  EXPECT_EQ(session.Query("SELECT * FROM m.ducklake_view ORDER BY ALL"), views);
  session.Run("DETACH m");
  session.Run(AttachStandalone("m"));  // and it was stored, not only staged
  EXPECT_EQ(session.Query("SELECT count(*) FROM m.ducklake_view_column_tag"), (test::Rows{{"2"}}));
}

TEST_F(CatalogVersionE2e, ARaiseNeedsAnAttachedLakeOnMoraine) {
  test::DuckLakeSession session;
  std::string error = session.Error(Raise("nowhere", ", dry_run => true"));
  EXPECT_NE(error.find("not an attached lake on moraine"), std::string::npos) << error;
  session.Run("ATTACH ':memory:' AS plain");
  error = session.Error(Raise("plain", ", dry_run => true"));
  EXPECT_NE(error.find("not an attached lake on moraine"), std::string::npos) << error;
  error = session.Error("SELECT * FROM moraine_raise_catalog_version(NULL)");
  EXPECT_NE(error.find("not NULL"), std::string::npos) << error;
  // A moraine store DuckLake never initialized has no catalog version yet.
  session.Run("ATTACH 'memory://' AS empty (TYPE moraine)");
  error = session.Error(Raise("empty", ", dry_run => true"));
  EXPECT_NE(error.find("holds no DuckLake catalog yet"), std::string::npos) << error;
  error = session.Error(Raise("empty", ", dry_run => NULL"));
  EXPECT_NE(error.find("dry_run cannot be NULL"), std::string::npos) << error;
}

}  // namespace
}  // namespace moraine
