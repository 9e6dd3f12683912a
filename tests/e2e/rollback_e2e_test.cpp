// Point-in-time restore of a live lake through DuckLake SQL (issue #34):
// moraine_rollback(lake, to_snapshot => n) commits one snapshot whose whole
// catalog equals n's, checked against a stock DuckDB-file catalog that replays
// the same statements up to n; moraine_undrop brings back a dropped table as
// it was. History is kept (time travel to undone snapshots reads what it read),
// the lake goes on as any lake (writes, expiry, cleanup), and the store
// verifies at teardown. Built for etcd too (the distributed tier).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/directory_fingerprint.h"
#include "support/ducklake_session.h"
#include "support/lake_sql.h"
#include "support/moraine_lake_test.h"
#include "support/user_catalog.h"

namespace moraine {
namespace {

using test::Rows;

class RollbackE2e : public test::MoraineLakeTest {
 protected:
  // Statements both catalogs replay, `$L` naming the catalog. Inserts of a
  // hundred rows write Parquet files; small ones are inlined (the default
  // limit). The first `kBeforeTarget` build what the rollback returns to;
  // the rest change every kind of thing it must undo.
  static constexpr size_t kBeforeTarget = 10;
  static std::vector<std::string> History() {
    return {
        "CREATE SCHEMA $L.s",
        "CREATE TABLE $L.s.files (i INTEGER, s VARCHAR)",
        "INSERT INTO $L.s.files SELECT i, 'v' || i FROM range(100) t(i)",
        "INSERT INTO $L.s.files SELECT i, 'w' || i FROM range(100, 200) t(i)",
        "CREATE TABLE $L.small (k INTEGER, v VARCHAR)",
        "INSERT INTO $L.small VALUES (1, 'a'), (2, 'b')",
        "COMMENT ON TABLE $L.s.files IS 'the files'",
        "CREATE VIEW $L.v AS SELECT 42 AS answer",
        "CREATE TABLE $L.p (d DATE, x INTEGER)",
        "ALTER TABLE $L.p SET PARTITIONED BY (year(d))",
        // --- the target: everything below is undone.
        "INSERT INTO $L.p SELECT DATE '2020-01-01' + i::INTEGER, i FROM range(100) t(i)",
        "INSERT INTO $L.s.files VALUES (1000, 'late')",
        "DELETE FROM $L.s.files WHERE i < 10 OR i = 150",
        "UPDATE $L.small SET v = 'B' WHERE k = 2",
        "ALTER TABLE $L.small ADD COLUMN w INTEGER DEFAULT 7",
        "INSERT INTO $L.small VALUES (3, 'c', 8)",
        "ALTER TABLE $L.s.files RENAME COLUMN s TO label",
        "ALTER TABLE $L.s.files RENAME TO renamed",
        "DROP VIEW $L.v",
        "CREATE TABLE $L.later AS SELECT 1 AS one",
        "CREATE MACRO $L.twice(x) AS x * 2",
        "COMMENT ON TABLE $L.s.renamed IS 'changed'",
        "CALL ducklake_merge_adjacent_files('$L')",
        "DROP TABLE $L.p",
    };
  }

  static Rows TableAt(test::DuckLakeSession& session, const std::string& table, int64_t snapshot) {
    return session.Query("SELECT * FROM " + table + " AT (VERSION => " + std::to_string(snapshot) +
                         ") ORDER BY ALL");
  }

  void AttachStock(test::DuckLakeSession& session, const std::string& name) {
    session.Run("ATTACH 'ducklake:" + dir_.path(name + ".ducklake") + "' AS " + name +
                " (DATA_PATH '" + dir_.path(name + "_files") + "/')");
  }
};

TEST_F(RollbackE2e, ARollbackEqualsTheLakeAtItsSnapshotAsAStockReplayReadsIt) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  AttachStock(session, "stock");
  const auto history = History();
  std::vector<int64_t> after;
  for (size_t i = 0; i < history.size(); ++i) {
    session.Run(test::OnLake(history[i], "lake"));
    after.push_back(session.Head());
    if (i < kBeforeTarget) session.Run(test::OnLake(history[i], "stock"));
  }
  const int64_t target = after[kBeforeTarget - 1];
  const int64_t head_before = session.Head();
  const Rows stock_at_target = test::UserCatalog(session, "stock");
  ASSERT_NE(test::UserCatalog(session, "lake"),
            stock_at_target);  // the later statements changed it
  // What time travel reads before the rollback, at a snapshot it undoes.
  const int64_t undone = after[kBeforeTarget + 6];
  const Rows small_undone = TableAt(session, "lake.small", undone);

  const Rows outcome = session.Query("SELECT * FROM moraine_rollback('lake', to_snapshot => " +
                                     std::to_string(target) + ")");
  ASSERT_EQ(outcome.size(), 1u);
  EXPECT_EQ(outcome[0][0], std::to_string(head_before + 1));
  EXPECT_EQ(session.Head(), head_before + 1);
  EXPECT_EQ(test::UserCatalog(session, "lake"), stock_at_target);
  // History is kept: the undone snapshots read what they read.
  EXPECT_EQ(TableAt(session, "lake.small", undone), small_undone);
  EXPECT_EQ(session.Query("SELECT commit_message FROM ducklake_snapshots('lake') WHERE "
                          "snapshot_id = " +
                          std::to_string(head_before + 1)),
            (Rows{{"moraine_rollback to snapshot " + std::to_string(target)}}));

  // DuckLake's own functions read the rollback as an ordinary commit: the
  // inlined rows it ended and brought back are its changes, and the files
  // live at the head are those of the stock catalog at the target.
  const std::string rolled = std::to_string(head_before + 1);
  EXPECT_EQ(
      session.Query("SELECT change_type, k, v FROM ducklake_table_changes('lake', 'main', "
                    "'small', " +
                    rolled + ", " + rolled + ") ORDER BY ALL"),
      (Rows{{"delete", "3", "c"}, {"update_postimage", "2", "b"}, {"update_preimage", "2", "B"}}));
  for (const std::string info : {"ducklake_table_info('lake')", "ducklake_table_info('stock')"}) {
    EXPECT_EQ(session.Query("SELECT table_name, file_count, delete_file_count FROM " + info +
                            " ORDER BY ALL"),
              (Rows{{"files", "2", "0"}, {"p", "0", "0"}, {"small", "0", "0"}}))
        << info;
  }

  // The lake goes on as the stock one does from there.
  for (const std::string statement :
       {"INSERT INTO $L.s.files VALUES (5000, 'after')", "DELETE FROM $L.s.files WHERE i = 42",
        "INSERT INTO $L.small VALUES (9, 'z')", "ALTER TABLE $L.small ADD COLUMN z BOOLEAN",
        "INSERT INTO $L.p SELECT DATE '2021-06-01', i FROM range(3) t(i)"}) {
    session.Run(test::OnLake(statement, "lake"));
    session.Run(test::OnLake(statement, "stock"));
  }
  EXPECT_EQ(test::UserCatalog(session, "lake"), test::UserCatalog(session, "stock"));
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('lake')"), (Rows{{"0"}}));
}

// A rollback to the snapshot just before another rollback undoes it; an
// expiry of everything but the head and a full cleanup then delete no file
// the head still reads (files brought back share their paths with the rows
// the expiry removes).
TEST_F(RollbackE2e, ARollbackIsUndoneByAnotherAndExpiryKeepsTheFilesTheHeadReads) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  const auto history = History();
  std::vector<int64_t> after;
  for (const auto& statement : history) {
    session.Run(test::OnLake(statement, "lake"));
    after.push_back(session.Head());
  }
  const int64_t before_rollback = session.Head();
  const Rows full = test::UserCatalog(session, "lake");
  session.Run("CALL moraine_rollback('lake', to_snapshot => " +
              std::to_string(after[kBeforeTarget - 1]) + ")");
  ASSERT_NE(test::UserCatalog(session, "lake"), full);
  session.Run("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(before_rollback) +
              ")");
  EXPECT_EQ(test::UserCatalog(session, "lake"), full);

  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  session.Run("CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)");
  EXPECT_EQ(session.Query("SELECT count(*) FROM ducklake_snapshots('lake')"), (Rows{{"1"}}));
  EXPECT_EQ(test::UserCatalog(session, "lake"), full);
  // Reopened from the store alone.
  session.Run("DETACH lake");
  session.Run(AttachLake());
  EXPECT_EQ(test::UserCatalog(session, "lake"), full);
}

TEST_F(RollbackE2e, AnUndropBringsBackADroppedTableAsItWas) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.keep (i INTEGER)");
  session.Run("INSERT INTO lake.keep VALUES (1)");
  session.Run("CREATE TABLE lake.t (i INTEGER, s VARCHAR)");
  session.Run("INSERT INTO lake.t SELECT i, 'v' || i FROM range(100) t(i)");
  session.Run("INSERT INTO lake.t VALUES (1000, 'inlined')");
  session.Run("DELETE FROM lake.t WHERE i < 5");
  session.Run("COMMENT ON TABLE lake.t IS 'precious'");
  session.Run("ALTER TABLE lake.t ADD COLUMN extra INTEGER DEFAULT 3");
  const Rows rows = session.Query("SELECT * FROM lake.t ORDER BY ALL");
  const Rows described = session.Query("DESCRIBE lake.t");
  session.Run("DROP TABLE lake.t");
  session.Run("INSERT INTO lake.keep VALUES (2)");
  const int64_t head = session.Head();

  const Rows outcome = session.Query("SELECT snapshot_id FROM moraine_undrop('lake', 'main.t')");
  EXPECT_EQ(outcome, (Rows{{std::to_string(head + 1)}}));
  EXPECT_EQ(session.Query("SELECT * FROM lake.t ORDER BY ALL"), rows);
  EXPECT_EQ(session.Query("DESCRIBE lake.t"), described);
  EXPECT_EQ(session.Query("SELECT comment FROM duckdb_tables() WHERE table_name = 't'"),
            (Rows{{"precious"}}));
  // The rest of the lake is as it was at the head.
  EXPECT_EQ(session.Query("SELECT i FROM lake.keep ORDER BY i"), (Rows{{"1"}, {"2"}}));
  // The table takes writes, and a second drop and undrop work the same way.
  session.Run("INSERT INTO lake.t VALUES (2000, 'new', 4)");
  const Rows with_new = session.Query("SELECT * FROM lake.t ORDER BY ALL");
  session.Run("DROP TABLE lake.t");
  session.Run("CALL moraine_undrop('lake', 't')");
  EXPECT_EQ(session.Query("SELECT * FROM lake.t ORDER BY ALL"), with_new);
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('lake')"), (Rows{{"0"}}));
}

// The table as it was just before its drop is whole only while that snapshot
// is held: expiring it removes the files only it read (here the second
// insert's), so the undrop is refused and changes nothing.
TEST_F(RollbackE2e, AnUndropIsRefusedOnceTheSnapshotBeforeTheDropExpired) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  session.Run("INSERT INTO lake.t SELECT range FROM range(10, 110)");
  const int64_t before_drop = session.Head();
  session.Run("DROP TABLE lake.t");
  session.Run("CALL ducklake_expire_snapshots('lake', versions => [" + std::to_string(before_drop) +
              "])");
  const int64_t head = session.Head();
  const std::string error = session.Error("CALL moraine_undrop('lake', 't')");
  EXPECT_NE(error.find("snapshot " + std::to_string(before_drop) + ", the last before 'main.t'"),
            std::string::npos)
      << error;
  EXPECT_EQ(session.Head(), head);
  EXPECT_EQ(session.Query("SELECT count(*) FROM duckdb_tables() WHERE table_name = 't'"),
            (Rows{{"0"}}));
}

TEST_F(RollbackE2e, BadInputIsATypedErrorAndChangesNothing) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  session.Run("INSERT INTO lake.t VALUES (2)");
  session.Run("CREATE TABLE lake.taken (i INTEGER)");
  session.Run("CREATE TABLE lake.gone (i INTEGER)");
  session.Run("DROP TABLE lake.gone");
  session.Run("CREATE TABLE lake.gone (j INTEGER)");
  session.Run("CALL ducklake_expire_snapshots('lake', versions => [1])");
  // The file of the first insert, deleted by hand: a rollback to before the
  // second would bring it back only if it were there.
  session.Run("DELETE FROM lake.t");
  const auto file = session.Query(
      "SELECT path FROM __ducklake_metadata_lake.ducklake_data_file ORDER BY data_file_id LIMIT 1");
  ASSERT_EQ(file.size(), 1u);
  std::filesystem::remove(Files() + "main/t/" + file[0][0]);
  const int64_t head = session.Head();
  const test::DirectoryFingerprint store_before =
      test::kLakeOnEtcd ? test::DirectoryFingerprint{} : test::FingerprintOf(Store());
  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"CALL moraine_rollback('nolake', to_snapshot => 2)",
       "'nolake' is not an attached lake on moraine"},
      {"CALL moraine_rollback('lake')", "needs to_snapshot"},
      {"CALL moraine_rollback('lake', to_snapshot => NULL)", "needs to_snapshot"},
      {"CALL moraine_rollback('lake', to_snapshot => 999)", "snapshot 999 does not exist"},
      {"CALL moraine_rollback('lake', to_snapshot => 1)", "snapshot 1 does not exist"},
      {"CALL moraine_rollback('lake', to_snapshot => 2)", "no longer exist"},
      {"CALL moraine_undrop('lake', 'main.absent')", "no dropped table 'main.absent'"},
      {"CALL moraine_undrop('lake', 'nothere.t')", "no schema 'nothere'"},
      {"CALL moraine_undrop('lake', 'gone')", "a table or view 'main.gone' exists"},
      {"CALL moraine_undrop('lake', 'a.b.c')", "takes the table as 'schema.table'"},
      {"CALL moraine_undrop('lake', NULL)", "not NULL"},
  };
  for (const auto& [sql, expected] : refusals) {
    const std::string error = session.Error(sql);
    EXPECT_NE(error.find(expected), std::string::npos) << sql << "\n  -> " << error;
  }
  const std::string missing = session.Error("CALL moraine_rollback('lake', to_snapshot => 2)");
  EXPECT_NE(missing.find(file[0][0]), std::string::npos) << missing;
  EXPECT_EQ(session.Head(), head);
  if (!test::kLakeOnEtcd) {
    EXPECT_EQ(test::FingerprintOf(Store()), store_before);
  }
  // A rollback to the head changes nothing and says so.
  EXPECT_EQ(session.Query("SELECT * FROM moraine_rollback('lake', to_snapshot => " +
                          std::to_string(head) + ")"),
            (Rows{{std::to_string(head), "0", "0"}}));
  EXPECT_EQ(session.Head(), head);
}

// A comment is part of the catalog DuckLake caches by schema version: a
// rollback of a comment alone must be seen by a session that read it.
TEST_F(RollbackE2e, ARollbackOfACommentAloneIsSeen) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("COMMENT ON TABLE lake.t IS 'first'");
  const int64_t target = session.Head();
  session.Run("COMMENT ON TABLE lake.t IS 'second'");
  const auto comment = [&] {
    return session.Query("SELECT comment FROM duckdb_tables() WHERE table_name = 't'");
  };
  ASSERT_EQ(comment(), (Rows{{"second"}}));
  session.Run("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(target) + ")");
  EXPECT_EQ(comment(), (Rows{{"first"}}));
}

// DuckLake's compaction and its flush of inlined rows write one file of rows
// from many snapshots and drop what they replaced from the catalog; it reads
// such a file at an earlier snapshot through a filter on its rows' snapshots
// (partial_max), which no newer snapshot applies. A rollback across one
// brings the file back with its later rows left out, read from the file.
TEST_F(RollbackE2e, ARollbackAcrossACompactionOrAFlushLeavesOutTheLaterRows) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  AttachStock(session, "stock");
  const std::vector<std::string> history = {
      "CREATE TABLE $L.t (i INTEGER)",
      "INSERT INTO $L.t SELECT range FROM range(100)",
      "CREATE TABLE $L.small (i INTEGER)",
      "INSERT INTO $L.small VALUES (1), (2)",
      "DELETE FROM $L.small WHERE i = 2",
      // --- the target
      "INSERT INTO $L.t SELECT range FROM range(100, 200)",
      "CALL ducklake_merge_adjacent_files('$L')",
      "DELETE FROM $L.t WHERE i % 10 = 0",
      "INSERT INTO $L.small VALUES (3)",
      "DELETE FROM $L.small WHERE i = 1",
      "CALL ducklake_flush_inlined_data('$L')",
  };
  int64_t target = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    session.Run(test::OnLake(history[i], "lake"));
    if (i < 5) session.Run(test::OnLake(history[i], "stock"));
    if (i == 4) target = session.Head();
  }
  ASSERT_EQ(session.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_data_file "
                          "WHERE end_snapshot IS NULL AND partial_max > " +
                          std::to_string(target)),
            (Rows{{"2"}}));  // the compaction's file and the flush's
  session.Run("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(target) + ")");
  EXPECT_EQ(test::UserCatalog(session, "lake"), test::UserCatalog(session, "stock"));
  // Both go on alike; the expiry of what the rollback replaced keeps it.
  for (const std::string statement :
       {"INSERT INTO $L.t VALUES (-1)", "DELETE FROM $L.t WHERE i < 5",
        "INSERT INTO $L.small VALUES (9)"}) {
    session.Run(test::OnLake(statement, "lake"));
    session.Run(test::OnLake(statement, "stock"));
  }
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  EXPECT_EQ(test::UserCatalog(session, "lake"), test::UserCatalog(session, "stock"));
}

// An encrypted file's rows cannot be read apart by snapshot here: a rollback
// across its compaction is refused, naming it, and changes nothing.
TEST_F(RollbackE2e, ARollbackAcrossACompactionOfEncryptedFilesIsRefused) {
  test::DuckLakeSession session;
  // This host loads no httpfs, whose crypto DuckDB wants for writing.
  session.Run("SET force_mbedtls_unsafe = 'true'");
  session.Run(AttachLake(", ENCRYPTED"));
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t SELECT range FROM range(100)");
  const int64_t target = session.Head();
  session.Run("INSERT INTO lake.t SELECT range FROM range(100, 200)");
  session.Run("CALL ducklake_merge_adjacent_files('lake')");
  const int64_t head = session.Head();
  const test::DirectoryFingerprint store_before =
      test::kLakeOnEtcd ? test::DirectoryFingerprint{} : test::FingerprintOf(Store());
  const std::string error =
      session.Error("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(target) + ")");
  EXPECT_NE(error.find("merged with rows of later snapshots"), std::string::npos) << error;
  EXPECT_NE(error.find(".parquet"), std::string::npos) << error;
  EXPECT_EQ(session.Head(), head);
  if (!test::kLakeOnEtcd) {
    EXPECT_EQ(test::FingerprintOf(Store()), store_before);
  }
}

// A rollback is an ordinary commit: a DuckLake transaction that began before
// it and writes a table it changed conflicts, as with any schema change.
TEST_F(RollbackE2e, AWriterThatBeganBeforeARollbackConflictsWithIt) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  const int64_t target = session.Head();
  session.Run("ALTER TABLE lake.t ADD COLUMN j INTEGER");
  auto writer = session.host().Connect();
  ASSERT_FALSE(writer->Query("BEGIN")->HasError());
  ASSERT_FALSE(writer->Query("INSERT INTO lake.t VALUES (2, 2)")->HasError());
  session.Run("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(target) + ")");
  const auto commit = writer->Query("COMMIT");
  ASSERT_TRUE(commit->HasError());
  EXPECT_NE(commit->GetError().find("onflict"), std::string::npos) << commit->GetError();
  EXPECT_EQ(session.Query("SELECT * FROM lake.t"), (Rows{{"1"}}));
}

}  // namespace
}  // namespace moraine
