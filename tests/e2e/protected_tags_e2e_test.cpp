// Protected tags through DuckLake SQL with the pinned DuckLake (issue #34):
// moraine_tag / moraine_untag / moraine_tags / moraine_tag_snapshot; an
// expiry by time (and CHECKPOINT's) passes over tagged snapshots, one that
// names a tagged snapshot is refused whole, and the cleanup functions keep
// every file a tagged snapshot reads. The expiry is checked against a stock
// DuckDB-file catalog that replays the same statements and expires the same
// snapshots by name. Built for etcd too (the distributed tier).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "support/directory_fingerprint.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"

namespace moraine {
namespace {

using test::Rows;

class ProtectedTagsE2e : public test::MoraineLakeTest {
 protected:
  // Every insert a data file, so that expiry and cleanup have files to delete.
  std::string AttachWithFiles(const std::string& options = "") const {
    return AttachLake(", DATA_INLINING_ROW_LIMIT 0" + options);
  }

  // The statements both catalogs replay, `LAKE` naming the catalog: five
  // snapshots after the table's, one of them deleting a row (a delete file)
  // and one rewriting the table (its old files scheduled for deletion).
  static std::vector<std::string> History() {
    return {"CREATE TABLE LAKE.t (i INTEGER, s VARCHAR)",
            "INSERT INTO LAKE.t VALUES (1, 'one'), (2, 'two')",
            "INSERT INTO LAKE.t VALUES (3, 'three')",
            "DELETE FROM LAKE.t WHERE i = 2",
            "UPDATE LAKE.t SET s = upper(s)",
            "INSERT INTO LAKE.t VALUES (4, 'four')"};
  }

  static std::string On(std::string sql, const std::string& lake) {
    for (size_t at; (at = sql.find("LAKE")) != std::string::npos;) sql.replace(at, 4, lake);
    return sql;
  }

  static std::vector<int64_t> SnapshotIds(test::DuckLakeSession& session, const std::string& lake) {
    std::vector<int64_t> ids;
    for (const auto& row : session.Query("SELECT snapshot_id FROM ducklake_snapshots('" + lake +
                                         "') ORDER BY snapshot_id")) {
      ids.push_back(std::stoll(row[0]));
    }
    return ids;
  }

  static Rows TableAt(test::DuckLakeSession& session, const std::string& lake, int64_t snapshot) {
    return session.Query("SELECT i, s FROM " + lake + ".t AT (VERSION => " +
                         std::to_string(snapshot) + ") ORDER BY i");
  }

  // Parquet files under `directory`, by path relative to it.
  static std::set<std::string> ParquetFiles(const std::string& directory) {
    std::set<std::string> files;
    if (!std::filesystem::exists(directory)) return files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
      if (entry.path().extension() == ".parquet") {
        files.insert(std::filesystem::relative(entry.path(), directory).string());
      }
    }
    return files;
  }
};

TEST_F(ProtectedTagsE2e, AnExpiryByTimePassesOverTagsAndCleanupKeepsTheirFilesAsStockWould) {
  test::DuckLakeSession session;
  session.Run(AttachWithFiles());
  const std::string stock_files = dir_.path("stock_files") + "/";
  session.Run("ATTACH 'ducklake:" + dir_.path("stock.ducklake") + "' AS stock (DATA_PATH '" +
              stock_files + "', DATA_INLINING_ROW_LIMIT 0)");
  std::vector<int64_t> after;  // the snapshot each statement made
  for (const auto& statement : History()) {
    session.Run(On(statement, "lake"));
    session.Run(On(statement, "stock"));
    after.push_back(session.Head("lake"));
  }
  ASSERT_EQ(SnapshotIds(session, "lake"), SnapshotIds(session, "stock"));
  // Tag the snapshot after the second insert: its files include the ones the
  // DELETE and the UPDATE replace.
  const int64_t tagged = after[2];
  const Rows at_tag = TableAt(session, "lake", tagged);
  ASSERT_EQ(at_tag, (Rows{{"1", "one"}, {"2", "two"}, {"3", "three"}}));
  EXPECT_EQ(
      session.Query("SELECT name, snapshot_id FROM moraine_tag('lake', 'audit', snapshot => " +
                    std::to_string(tagged) + ")"),
      (Rows{{"audit", std::to_string(tagged)}}));
  EXPECT_EQ(session.Query("SELECT moraine_tag_snapshot('lake', 'audit')"),
            (Rows{{std::to_string(tagged)}}));

  // moraine: everything older than now, which passes over the tag. Stock:
  // the same snapshots by name.
  const auto narrowed_before =
      session.Query("SELECT native_expiries_narrowed FROM moraine_native_manager()")[0][0];
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  EXPECT_EQ(session.Query("SELECT native_expiries_narrowed FROM moraine_native_manager()")[0][0],
            std::to_string(std::stoll(narrowed_before) + 1));
  std::string stock_versions;
  for (int64_t id : SnapshotIds(session, "stock")) {
    if (id == tagged || id == session.Head("stock")) continue;
    stock_versions += (stock_versions.empty() ? "" : ", ") + std::to_string(id);
  }
  session.Run("CALL ducklake_expire_snapshots('stock', versions => [" + stock_versions + "])");
  EXPECT_EQ(SnapshotIds(session, "lake"), (std::vector<int64_t>{tagged, after.back()}));
  EXPECT_EQ(SnapshotIds(session, "lake"), SnapshotIds(session, "stock"));

  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  session.Run("CALL ducklake_cleanup_old_files('stock', cleanup_all => true)");
  session.Run("CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)");
  session.Run("CALL ducklake_delete_orphaned_files('stock', cleanup_all => true)");
  EXPECT_EQ(ParquetFiles(Files()).size(), ParquetFiles(stock_files).size());
  for (const auto& lake : {"lake", "stock"}) {
    SCOPED_TRACE(lake);
    EXPECT_EQ(TableAt(session, lake, tagged), at_tag);
    EXPECT_EQ(session.Query(std::string("SELECT i, s FROM ") + lake + ".t ORDER BY i"),
              (Rows{{"1", "ONE"}, {"3", "THREE"}, {"4", "four"}}));
  }
  EXPECT_EQ(session.Query("SELECT i, s FROM lake.t AT (VERSION => moraine_tag_snapshot('lake', "
                          "'audit')) ORDER BY i"),
            at_tag);

  // Untagged, the snapshot goes with the next expiry, and its files with the
  // next cleanup.
  session.Run("CALL moraine_untag('lake', 'audit')");
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  EXPECT_EQ(SnapshotIds(session, "lake"), (std::vector<int64_t>{after.back()}));
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  EXPECT_LT(ParquetFiles(Files()).size(), ParquetFiles(stock_files).size());
}

TEST_F(ProtectedTagsE2e, NamingATaggedSnapshotInVersionsIsRefusedAndExpiresNothing) {
  test::DuckLakeSession session;
  session.Run(AttachWithFiles());
  for (const auto& statement : History()) session.Run(On(statement, "lake"));
  const auto before = SnapshotIds(session, "lake");
  session.Run("CALL moraine_tag('lake', 'keep', snapshot => 2)");
  for (const std::string& call :
       {std::string("CALL ducklake_expire_snapshots('lake', versions => [1, 2, 3])"),
        std::string("CALL ducklake_expire_snapshots('lake', versions => [2], dry_run => true)")}) {
    const std::string error = session.Error(call);
    EXPECT_NE(error.find("snapshot 2 is protected by the tag 'keep'"), std::string::npos) << error;
  }
  EXPECT_EQ(SnapshotIds(session, "lake"), before);
  // Leaving it out expires the others.
  session.Run("CALL ducklake_expire_snapshots('lake', versions => [1, 3])");
  EXPECT_EQ(SnapshotIds(session, "lake").size(), before.size() - 2);
}

// With DuckLake's own SQL manager the expiry chooses its snapshots without
// moraine: the catalog refuses the deletion of the tagged one, so an expiry
// by time over a tag is refused whole (README: the native manager passes
// over tags).
TEST_F(ProtectedTagsE2e, WithoutTheNativeManagerAnExpiryOverATagIsRefusedWhole) {
  test::DuckLakeSession session;
  session.Run(AttachWithFiles(", META_NATIVE_MANAGER false"));
  for (const auto& statement : History()) session.Run(On(statement, "lake"));
  const auto before = SnapshotIds(session, "lake");
  session.Run("CALL moraine_tag('lake', 'keep', snapshot => 3)");
  for (const std::string& call :
       {std::string("CALL ducklake_expire_snapshots('lake', older_than => now())"),
        std::string("CALL ducklake_expire_snapshots('lake', versions => [3])")}) {
    const std::string error = session.Error(call);
    EXPECT_NE(error.find("protected by the tag 'keep'"), std::string::npos) << error;
    EXPECT_EQ(SnapshotIds(session, "lake"), before);
  }
}

// The tag keeps snapshot 2, which reads data file 0; the UPDATE ended that
// file but, as DuckLake does, not its delete file, which began at snapshot 4,
// now expired. The store verifies at teardown (a delete file's data file must
// have been live when it began, not at the first snapshot still held).
TEST_F(ProtectedTagsE2e, CheckpointExpiresAroundATag) {
  test::DuckLakeSession session;
  session.Run(AttachWithFiles());
  for (const auto& statement : History()) session.Run(On(statement, "lake"));
  session.Run("CALL moraine_tag('lake', 'first rows', snapshot => 2)");
  const Rows at_tag = TableAt(session, "lake", 2);
  session.Run("CALL lake.set_option('expire_older_than', '1 millisecond')");
  session.Run("CHECKPOINT lake");
  const auto remaining = SnapshotIds(session, "lake");
  ASSERT_GE(remaining.size(), 2u);
  EXPECT_EQ(remaining.front(), 2);
  EXPECT_EQ(TableAt(session, "lake", 2), at_tag);
}

TEST_F(ProtectedTagsE2e, TagsAreListedWithTheirHistory) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  const int64_t head = session.Head();
  session.Run("CALL moraine_tag('lake', 'v1', author => 'ana')");
  session.Run("CALL moraine_tag('lake', 'v0', snapshot => 1)");
  session.Run("CALL moraine_untag('lake', 'v0')");
  EXPECT_EQ(session.Query("SELECT name, snapshot_id, author, removed IS NULL, created_at_head "
                          "FROM moraine_tags('lake')"),
            (Rows{{"v1", std::to_string(head), "ana", "true", std::to_string(head)}}));
  EXPECT_EQ(
      session.Query("SELECT name, removed IS NULL FROM moraine_tags('lake', history => true)"),
      (Rows{{"v1", "true"}, {"v0", "false"}}));
  // A tag moves no DuckLake snapshot.
  EXPECT_EQ(session.Head(), head);
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('lake')"), (Rows{{"0"}}));
}

// A tag names a snapshot wherever DuckLake takes one: AT (VERSION => ...) and
// ATTACH's SNAPSHOT_VERSION, whose values DuckDB folds when it binds them.
TEST_F(ProtectedTagsE2e, ALakeAttachesAtATag) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  session.Run("CALL moraine_tag('lake', 'v1')");
  session.Run("INSERT INTO lake.t VALUES (2)");
  session.Run("ATTACH 'ducklake:moraine:" + Store() + "' AS v1 (READ_ONLY, SNAPSHOT_VERSION " +
              "moraine_tag_snapshot('lake', 'v1'))");
  EXPECT_EQ(session.Query("SELECT i FROM v1.t ORDER BY i"), (Rows{{"1"}}));
  EXPECT_EQ(
      session.Query("SELECT i FROM lake.t AT (VERSION => moraine_tag_snapshot('lake', 'v1'))"),
      (Rows{{"1"}}));
  EXPECT_EQ(session.Query("SELECT i FROM lake.t ORDER BY i"), (Rows{{"1"}, {"2"}}));
}

TEST_F(ProtectedTagsE2e, BadInputIsATypedErrorAndChangesNothing) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("CALL moraine_tag('lake', 'taken')");
  const auto tags_before = session.Query("SELECT * FROM moraine_tags('lake', history => true)");
  const auto head = session.Head();
  const test::DirectoryFingerprint store_before =
      test::kLakeOnEtcd ? test::DirectoryFingerprint{} : test::FingerprintOf(Store());
  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"CALL moraine_tag('nolake', 'x')", "'nolake' is not an attached lake on moraine"},
      {"CALL moraine_tag('lake', 'taken')", "the tag 'taken' already exists"},
      {"CALL moraine_tag('lake', '')", "a tag name cannot be empty"},
      {"CALL moraine_tag('lake', NULL)", "needs a tag name, not NULL"},
      {"CALL moraine_tag('lake', 'x', snapshot => 999)", "snapshot 999 does not exist"},
      {"CALL moraine_untag('lake', 'absent')", "no tag 'absent' exists"},
      {"SELECT moraine_tag_snapshot('lake', 'absent')", "no tag 'absent' exists"},
      {"SELECT moraine_tag_snapshot('nolake', 'taken')", "not an attached lake on moraine"},
      {"SELECT * FROM lake.t AT (VERSION => moraine_tag_snapshot('lake', 'absent'))",
       "no tag 'absent' exists"},
  };
  for (const auto& [sql, expected] : refusals) {
    const std::string error = session.Error(sql);
    EXPECT_NE(error.find(expected), std::string::npos) << sql << "\n  -> " << error;
  }
  EXPECT_EQ(session.Query("SELECT * FROM moraine_tags('lake', history => true)"), tags_before);
  EXPECT_EQ(session.Head(), head);
  if (!test::kLakeOnEtcd) {
    EXPECT_EQ(test::FingerprintOf(Store()), store_before);
  }
}

}  // namespace
}  // namespace moraine
