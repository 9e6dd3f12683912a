// Online backup and restore through DuckLake SQL with the pinned DuckLake
// (issue #34): moraine_backup while four connections commit, restored with
// tools::RestoreStore and attached as a lake that reads, table for table,
// what the source read at the backup's snapshot; the backup's hold keeps
// the files a later compaction replaces until moraine_release_backup, and
// an unheld copy of the catalog loses them, which is why the hold exists.
// Built for etcd too (the distributed tier): the backup reads the lake's
// prefix at one revision, the restore makes a directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "store/error.h"
#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "store/write_batch.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "tools/store_backup.h"
#include "tools/tool_store.h"

namespace moraine {
namespace {

using test::Rows;

class BackupE2e : public test::MoraineLakeTest {
 protected:
  std::string Repository() const { return dir_.path("backups"); }

  static size_t ParquetFiles(const std::string& directory) {
    size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
      files += entry.path().extension() == ".parquet";
    }
    return files;
  }

  // Metadata table `table` of the lake attached as `lake` as it stood at
  // snapshot `at`, read after later commits that only inserted into tables
  // through files: versions begun after `at` left out and ends after it
  // cleared; snapshot rows and the rows of files written after it left out;
  // the table stats (which later inserts moved in place) summed again from
  // the files and their column stats, as DuckLake keeps them.
  static Rows MetadataAt(test::DuckLakeSession& session, const std::string& lake,
                         const catalog::CatalogTable& shape, const std::string& at) {
    const std::string table(shape.name);
    const std::string meta = "__ducklake_metadata_" + lake;
    const std::string next_file =
        "(SELECT next_file_id FROM " + meta + ".ducklake_snapshot WHERE snapshot_id = " + at + ")";
    const std::string files_then =
        "(SELECT * FROM " + meta + ".ducklake_data_file WHERE begin_snapshot <= " + at + ")";
    if (table == "ducklake_table_stats") {
      return session.Query(
          "SELECT table_id, sum(record_count), max(row_id_start + record_count), "
          "sum(file_size_bytes) FROM " +
          files_then + " GROUP BY table_id ORDER BY ALL");
    }
    if (table == "ducklake_table_column_stats") {
      // Stats values are text; order the integer column's as numbers.
      return session.Query(
          "SELECT s.table_id, s.column_id, bool_or(s.null_count > 0), bool_or(s.contains_nan), "
          "CASE WHEN c.column_type LIKE 'int%' THEN min(TRY_CAST(s.min_value AS BIGINT))::VARCHAR "
          "ELSE "
          "min(s.min_value) END, CASE WHEN c.column_type LIKE 'int%' THEN "
          "max(TRY_CAST(s.max_value AS BIGINT))::VARCHAR ELSE max(s.max_value) END, NULL FROM " +
          meta + ".ducklake_file_column_stats s JOIN " + files_then +
          " f USING (data_file_id) JOIN " + meta +
          ".ducklake_column c ON c.table_id = s.table_id AND c.column_id = s.column_id "
          "GROUP BY s.table_id, s.column_id, c.column_type ORDER BY ALL");
    }
    std::vector<std::string> columns;
    for (const auto& column : shape.columns) columns.emplace_back(column.name);
    const auto has = [&](const std::string& name) {
      return std::find(columns.begin(), columns.end(), name) != columns.end();
    };
    std::string select;
    for (const auto& column : columns) {
      select += select.empty() ? "" : ", ";
      select += column == "end_snapshot"
                    ? "CASE WHEN end_snapshot > " + at + " THEN NULL ELSE end_snapshot END"
                    : column;
    }
    std::string where = "true";
    if (has("begin_snapshot")) where = "begin_snapshot <= " + at;
    if (has("snapshot_id")) where = "snapshot_id <= " + at;
    if (has("data_file_id") && table != "ducklake_data_file" && table != "ducklake_delete_file") {
      where += " AND data_file_id < " + next_file;
    }
    return session.Query("SELECT " + select + " FROM " + meta + "." + table + " WHERE " + where +
                         " ORDER BY ALL");
  }

  // A lake of `tables` tables, each written by several commits to files.
  void Fill(test::DuckLakeSession& session, int tables) {
    for (int t = 0; t < tables; ++t) {
      const std::string table = "lake.t" + std::to_string(t);
      session.Run("CREATE TABLE " + table + " (i INTEGER, s VARCHAR)");
      for (int i = 0; i < 3; ++i) {
        session.Run("INSERT INTO " + table + " SELECT range + " + std::to_string(i * 10) +
                    ", 'v' || range FROM range(10)");
      }
    }
  }
};

TEST_F(BackupE2e, ABackupTakenWhileFourConnectionsCommitRestoresTheLakeAtItsSnapshot) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  Fill(session, 4);
  std::atomic<bool> stop{false};
  std::atomic<int> commits{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      auto connection = session.host().Connect();
      int i = 100;
      while (!stop.load()) {
        auto result = connection->Query("INSERT INTO lake.t" + std::to_string(w) + " VALUES (" +
                                        std::to_string(i++) + ", 'w')");
        if (!result->HasError()) commits.fetch_add(1);
      }
    });
  }
  while (commits.load() < 8) std::this_thread::yield();
  const Rows backup = session.Query(
      "SELECT backup_id, snapshot_id, hold FROM moraine_backup('lake', '" + Repository() + "')");
  const int during = commits.load();
  while (commits.load() < during + 8) std::this_thread::yield();
  stop = true;
  for (auto& writer : writers) writer.join();
  ASSERT_EQ(backup.size(), 1u);
  const std::string at = backup[0][1];
  EXPECT_EQ(backup[0][2], tools::BackupHoldName(Repository(), 1));
  EXPECT_LT(std::stoll(at), session.Head());

  tools::RestoreStore(Repository(), std::nullopt, dir_.path("restored.moraine"));
  session.Run("ATTACH 'ducklake:moraine:" + dir_.path("restored.moraine") +
              "' AS back (READ_ONLY)");
  EXPECT_EQ(session.Head("back"), std::stoll(at));
  for (int t = 0; t < 4; ++t) {
    const std::string table = "t" + std::to_string(t);
    EXPECT_EQ(
        session.Query("SELECT * FROM back." + table + " ORDER BY ALL"),
        session.Query("SELECT * FROM lake." + table + " AT (VERSION => " + at + ") ORDER BY ALL"))
        << table;
  }
  EXPECT_EQ(
      session.Query("SELECT snapshot_id, changes FROM back.snapshots() ORDER BY ALL"),
      session.Query("SELECT snapshot_id, changes FROM lake.snapshots() WHERE snapshot_id <= " + at +
                    " ORDER BY ALL"));
  // Row for row, every one of DuckLake's tables.
  ASSERT_EQ(catalog::CatalogTablesV1_0().size(), 28u);
  for (const auto& table : catalog::CatalogTablesV1_0()) {
    const std::string name(table.name);
    EXPECT_EQ(session.Query("SELECT * FROM __ducklake_metadata_back." + name + " ORDER BY ALL"),
              MetadataAt(session, "lake", table, at))
        << name;
  }
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('back')"), (Rows{{"0"}}));
}

TEST_F(BackupE2e, TheHoldKeepsWhatACompactionReplacedUntilTheBackupIsReleased) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  Fill(session, 1);
  const Rows before = session.Query("SELECT * FROM lake.t0 ORDER BY ALL");
  session.Run("SELECT * FROM moraine_backup('lake', '" + Repository() + "')");
  EXPECT_EQ(
      session.Query("SELECT name, holds_files_after_batch IS NOT NULL FROM moraine_tags('lake')"),
      (Rows{{tools::BackupHoldName(Repository(), 1), "true"}}));

  // Compacted, expired and cleaned: the three files become one, and the
  // catalog backed up still names the three.
  session.Run("INSERT INTO lake.t0 VALUES (1000, 'after')");
  session.Run("CALL ducklake_merge_adjacent_files('lake')");
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  session.Run("CALL ducklake_delete_orphaned_files('lake', cleanup_all => true)");
  EXPECT_GT(std::stoll(session.Query(
                "SELECT native_cleanups_narrowed FROM moraine_native_manager()")[0][0]),
            0);
  tools::RestoreStore(Repository(), std::nullopt, dir_.path("restored.moraine"));
  session.Run("ATTACH 'ducklake:moraine:" + dir_.path("restored.moraine") +
              "' AS back (READ_ONLY)");
  EXPECT_EQ(session.Query("SELECT * FROM back.t0 ORDER BY ALL"), before);
  // The restored lake holds nothing for the backup it came from.
  EXPECT_TRUE(session.Query("SELECT * FROM moraine_tags('back')").empty());
  EXPECT_EQ(
      session.Query("SELECT name, removed IS NULL FROM moraine_tags('back', history => true)"),
      (Rows{{tools::BackupHoldName(Repository(), 1), "false"}}));
  session.Run("DETACH back");

  // Released, the next cleanup deletes what only the backup read.
  const size_t held = ParquetFiles(Files());
  EXPECT_EQ(
      session.Query("SELECT released FROM moraine_release_backup('lake', '" + Repository() + "')"),
      (Rows{{tools::BackupHoldName(Repository(), 1)}}));
  EXPECT_TRUE(session.Query("SELECT * FROM moraine_tags('lake')").empty());
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  EXPECT_LT(ParquetFiles(Files()), held);
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t0"), (Rows{{"31"}}));
}

// The same compaction after a copy of the catalog that nothing holds (a
// catalog backup as DuckLake's own guide describes it): the restored lake
// names files the cleanup deleted.
TEST_F(BackupE2e, WithoutAHoldACompactionBreaksACopyOfTheCatalog) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  Fill(session, 1);
  {
    auto store = tools::OpenStoreReadOnly(Store());
    tools::BackupStore(*store->GetSnapshot(), Store(), Repository());
  }
  session.Run("CALL ducklake_merge_adjacent_files('lake')");
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
  tools::RestoreStore(Repository(), std::nullopt, dir_.path("restored.moraine"));
  session.Run("ATTACH 'ducklake:moraine:" + dir_.path("restored.moraine") +
              "' AS back (READ_ONLY)");
  const std::string error = session.Error("SELECT * FROM back.t0");
  EXPECT_FALSE(error.empty());
}

// A restore into a new store of the lake's own engine: a directory, or a new
// prefix of the etcd cluster, which an interrupted restore leaves refused
// at ATTACH until a restore finishes it.
TEST_F(BackupE2e, ABackupRestoresIntoANewStoreOfTheLakesEngine) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  Fill(session, 2);
  session.Run("SELECT * FROM moraine_backup('lake', '" + Repository() + "')");
  const std::string target =
      test::kLakeOnEtcd ? test::NewLakeStore(dir_) : dir_.path("restored.moraine");
  if (test::kLakeOnEtcd) {
    // What an interrupted restore leaves: its marker and some records.
    auto partial = store::OpenKvStore({.location = target});
    store::WriteBatch batch;
    batch.Put(store::Key::Current(store::Kind::kRestoreMarker, {}).Encode(),
              store::FrameValue(store::Kind::kRestoreMarker, store::v1::RestoreMarkerRecord()));
    batch.Put(store::Key::Current(store::Kind::kSchema, {77}).Encode(), "left over");
    partial->Write(batch);
    const std::string error =
        session.Error("ATTACH 'ducklake:moraine:" + target + "' AS back (READ_ONLY)");
    EXPECT_NE(error.find("unfinished restore"), std::string::npos) << error;
  }
  tools::RestoreStore(Repository(), std::nullopt, target);
  session.Run("ATTACH 'ducklake:moraine:" + target + "' AS back (READ_ONLY)");
  for (const std::string table : {"t0", "t1"}) {
    EXPECT_EQ(session.Query("SELECT * FROM back." + table + " ORDER BY ALL"),
              session.Query("SELECT * FROM lake." + table + " ORDER BY ALL"));
  }
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('back')"), (Rows{{"0"}}));
  // A store is never written over, restored or not.
  EXPECT_THROW(tools::RestoreStore(Repository(), std::nullopt, target),
               store::InvalidArgumentError);
  EXPECT_THROW(tools::RestoreStore(Repository(), std::nullopt, Store()),
               store::InvalidArgumentError);
}

TEST_F(BackupE2e, BadInputIsATypedError) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  std::filesystem::create_directories(dir_.path("foreign"));
  { std::ofstream(dir_.path("foreign/notes.txt")) << "mine"; }
  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"SELECT * FROM moraine_backup('nolake', '" + Repository() + "')",
       "'nolake' is not an attached lake on moraine"},
      {"SELECT * FROM moraine_backup('lake', '" + dir_.path("foreign") + "')",
       "is not a moraine backup repository"},
      {"SELECT * FROM moraine_backup('lake', NULL)", "needs a backup repository path, not NULL"},
      {"SELECT * FROM moraine_release_backup('lake', '" + Repository() + "')",
       "is held in this lake"},
  };
  for (const auto& [sql, expected] : refusals) {
    const std::string error = session.Error(sql);
    EXPECT_NE(error.find(expected), std::string::npos) << sql << "\n  -> " << error;
  }
  EXPECT_TRUE(session.Query("SELECT * FROM moraine_tags('lake', history => true)").empty());
}

}  // namespace
}  // namespace moraine
