// DuckLake's commit loop run inside the catalog by moraine's native metadata
// manager (FlushChangesServerSide in duckdb_shim/native_metadata_manager.h):
// connections of one process that keep losing races to each other's commits
// on disjoint tables all land with DuckLake's retry settings at their
// defaults; a commit of inlined data that lost only to data commits of other
// tables, or to inserts into a table it only inserted into, is rebased as it
// lands, every other lost race is re-checked by DuckLake, and
// both leave exactly what DuckLake's own retry leaves; a true conflict still
// ends in DuckLake's own conflict error; and a lake attached with the
// manager off gets DuckLake's loop as DuckLake runs it.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ducklake_adapter/native_metadata_manager.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

using ducklake_adapter::NativeMetadataManager;

constexpr int kConnections = 8;
constexpr int kCommitsEach = 25;

uint64_t InCatalogCommits() { return NativeMetadataManager::CurrentStatus().in_catalog_commits; }

void AttachLake(DuckLakeSession& session, const TempDir& dir, const std::string& options = "") {
  session.Run("ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") + "' AS lake (DATA_PATH '" +
              dir.path("files") + "/'" + options + ")");
}

std::string Table(int c) { return "lake.t" + std::to_string(c); }

// A second connection of the session's process, on one thread as the session.
std::unique_ptr<duckdb::Connection> OtherConnection(DuckLakeSession& session) {
  auto other = session.host().Connect();
  EXPECT_FALSE(other->Query("SET threads = 1")->HasError());
  return other;
}

// Runs statement_of(c, k) for k < `each` on connection c < `connections`,
// each connection on a thread of its own (one DuckDB thread each), all at
// once; per connection, the statements that failed with DuckDB's errors.
std::vector<std::string> RunOnConnections(
    DuckLakeSession& session, int connections, int each,
    const std::function<std::string(int c, int k)>& statement_of) {
  std::vector<std::string> failures(connections);
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      auto connection = OtherConnection(session);
      for (int k = 0; k < each; ++k) {
        const std::string sql = statement_of(c, k);
        auto result = connection->Query(sql);
        if (result->HasError()) failures[c] += sql + ": " + result->GetError() + "\n";
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return failures;
}

TEST(InCatalogRetry, IsOnForTheLoadedDuckLake) {
  DuckLakeSession session;
  TempDir dir;
  AttachLake(session, dir);
  const auto status = NativeMetadataManager::CurrentStatus();
  EXPECT_TRUE(status.in_catalog_retry) << status.in_catalog_retry_reason;
  EXPECT_EQ(session.Query("SELECT in_catalog_retry FROM moraine_native_manager()"),
            (Rows{{"true"}}));
}

// With DuckLake's defaults (10 retries, 100 ms x 1.5^k backoff) eight
// connections on one process lose races often enough that some commits give
// up on DuckLake's own catalogs. Here none may.
TEST(InCatalogRetry, EightConnectionsOnTheirOwnTablesAllLandWithDuckLakesDefaults) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir);
  for (int c = 0; c < kConnections; ++c) {
    session.Run("CREATE TABLE " + Table(c) + " (i INTEGER, v VARCHAR)");
  }
  const int64_t head_before = session.Head();
  const uint64_t in_catalog_before = InCatalogCommits();

  const auto failures = RunOnConnections(session, kConnections, kCommitsEach, [](int c, int k) {
    return "INSERT INTO " + Table(c) + " VALUES (" + std::to_string(k) + ", 'row " +
           std::to_string(k) + "')";
  });
  for (const auto& failure : failures) EXPECT_TRUE(failure.empty()) << failure;

  // Every commit landed once, at dense snapshot ids, each with its own row.
  const int64_t commits = kConnections * kCommitsEach;
  EXPECT_EQ(session.Head(), head_before + commits);
  EXPECT_EQ(session.Query("SELECT count(*), count(DISTINCT snapshot_id), min(snapshot_id), "
                          "max(snapshot_id) FROM __ducklake_metadata_lake.ducklake_snapshot "
                          "WHERE snapshot_id > " +
                          std::to_string(head_before)),
            (Rows{{std::to_string(commits), std::to_string(commits),
                   std::to_string(head_before + 1), std::to_string(head_before + commits)}}));
  for (int c = 0; c < kConnections; ++c) {
    EXPECT_EQ(session.Query("SELECT count(*), count(DISTINCT i), sum(i) FROM " + Table(c)),
              (Rows{{std::to_string(kCommitsEach), std::to_string(kCommitsEach),
                     std::to_string(kCommitsEach * (kCommitsEach - 1) / 2)}}))
        << Table(c);
  }
  EXPECT_GE(InCatalogCommits() - in_catalog_before, static_cast<uint64_t>(commits));
}

// Deletes of single rows of a Parquet file are inlined in the catalog and
// are not rebased: each lost race goes to DuckLake's retry, which the loop
// runs without a wait, holding the process's turn. A retry begun on the
// durable head lost to every commit whose sync still ran, and spent its ten
// attempts within that one sync (DuckLake's
// test_deletion_inlining_concurrent_retry.test failed 1 run in 3 to 6).
TEST(InCatalogRetry, DeletesInlinedByConnectionsOnTheirOwnTablesAllLand) {
  constexpr int kDeleters = 4;
  constexpr int kDeletesEach = 40;
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir, ", DATA_INLINING_ROW_LIMIT 10");
  for (int c = 0; c < kDeleters; ++c) {
    session.Run("CREATE TABLE " + Table(c) + " AS SELECT range AS a FROM range(50)");
  }
  const auto failures = RunOnConnections(session, kDeleters, kDeletesEach, [](int c, int k) {
    return "DELETE FROM " + Table(c) + " WHERE a = " + std::to_string(k);
  });
  for (const auto& failure : failures) EXPECT_TRUE(failure.empty()) << failure;
  for (int c = 0; c < kDeleters; ++c) {
    EXPECT_EQ(session.Query("SELECT count(*), min(a) FROM " + Table(c)),
              (Rows{{std::to_string(50 - kDeletesEach), std::to_string(kDeletesEach)}}))
        << Table(c);
  }
}

// An INSERT into a table another transaction dropped since this one began is
// a true conflict: retrying inside the catalog does not hide it, and the
// error is DuckLake's.
TEST(InCatalogRetry, ATrueConflictEndsInDuckLakesConflictErrorAndChangesNothing) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir);
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  auto other = OtherConnection(session);
  session.Run("BEGIN");
  session.Run("INSERT INTO lake.t VALUES (2)");
  auto dropped = other->Query("DROP TABLE lake.t");
  ASSERT_FALSE(dropped->HasError()) << dropped->GetError();
  const int64_t head = session.Head();
  const std::string error = session.Error("COMMIT");
  EXPECT_NE(error.find("Transaction conflict - attempting to insert into table"), std::string::npos)
      << error;
  EXPECT_NE(error.find("dropped it"), std::string::npos) << error;
  EXPECT_EQ(session.Head(), head);
  EXPECT_EQ(session.Query("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'lake'"),
            (Rows{{"0"}}));
}

// The first lake of a process is loaded by a DuckLake transaction whose
// manager DuckLake built before moraine registered its own. If the ATTACH
// runs in an explicit transaction that goes on writing while another
// connection reads the lake, that transaction must still commit through
// DuckLake's own loop (handing it to DuckLake's base manager throws, and
// DuckDB then invalidates the database). Later transactions retry inside.
TEST(InCatalogRetry, TheTransactionThatAttachedTheLakeCommitsWhileAnotherReadsIt) {
  TempDir dir;
  DuckLakeSession session;
  session.Run("BEGIN");
  AttachLake(session, dir);
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  auto other = OtherConnection(session);
  other->Query("SELECT count(*) FROM lake.t");  // fails: the lake has no snapshot yet
  session.Run("INSERT INTO lake.t VALUES (1)");
  session.Run("COMMIT");
  const uint64_t before = InCatalogCommits();
  session.Run("INSERT INTO lake.t VALUES (2)");
  auto inserted = other->Query("INSERT INTO lake.t VALUES (3)");
  ASSERT_FALSE(inserted->HasError()) << inserted->GetError();
  EXPECT_EQ(InCatalogCommits() - before, 2u);
  EXPECT_EQ(session.Query("SELECT count(*), sum(i) FROM lake.t"), (Rows{{"3", "6"}}));
}

// What a lost race leaves: the session's transaction runs `mine` while
// another connection commits `theirs` (each a statement or two of one
// transaction), then commits. Returns every catalog row a data commit
// touches, the rows of both tables at each snapshot, and the last committed
// snapshot DuckLake reports to the session right after its commit.
Rows LostRace(const std::string& options, const std::vector<std::string>& mine,
              const std::vector<std::string>& theirs) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir, options);
  session.Run("CREATE TABLE lake.t (i INTEGER, s VARCHAR)");
  session.Run("CREATE TABLE lake.u (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1, 'one'), (5, NULL)");
  session.Run("INSERT INTO lake.u VALUES (10)");
  auto other = OtherConnection(session);
  session.Run("BEGIN");
  for (const auto& statement : mine) session.Run(statement);
  EXPECT_FALSE(other->Query("BEGIN")->HasError());
  for (const auto& statement : theirs) {
    auto won = other->Query(statement);
    EXPECT_FALSE(won->HasError()) << statement << ": " << won->GetError();
  }
  EXPECT_FALSE(other->Query("COMMIT")->HasError());
  session.Run("COMMIT");
  Rows rows = session.Query("FROM lake.last_committed_snapshot()");
  const char* catalog_rows =
      "SELECT 'table', table_id, record_count, next_row_id, NULL, NULL, NULL FROM "
      "__ducklake_metadata_lake.ducklake_table_stats UNION ALL SELECT 'column', table_id, "
      "column_id, contains_null::INTEGER, min_value, max_value, NULL FROM "
      "__ducklake_metadata_lake.ducklake_table_column_stats UNION ALL SELECT 'snapshot', "
      "snapshot_id, schema_version, next_catalog_id, next_file_id, NULL, NULL FROM "
      "__ducklake_metadata_lake.ducklake_snapshot UNION ALL SELECT 'changes', snapshot_id, NULL, "
      "NULL, changes_made, NULL, NULL FROM __ducklake_metadata_lake.ducklake_snapshot_changes "
      "ORDER BY ALL";
  for (const auto& row : session.Query(catalog_rows)) rows.push_back(row);
  const int64_t head = session.Head();
  for (int64_t at = 3; at <= head; ++at) {
    const std::string version = " AT (VERSION => " + std::to_string(at) + ")";
    for (const auto& row :
         session.Query("SELECT " + std::to_string(at) + ", count(*), sum(i), max(s) FROM lake.t" +
                       version + " UNION ALL SELECT " + std::to_string(at) +
                       ", count(*), sum(i), NULL FROM lake.u" + version)) {
      rows.push_back(row);
    }
  }
  return rows;
}

// How a lost race is settled.
enum class Settled {
  // Moved onto the new head as it lands (commit/rows/snapshot_rebase.h): a
  // commit of inlined data that lost to data commits of other tables, or to
  // inserts into a table it only inserted into. DuckLake sees no lost race
  // and re-checks nothing.
  kRebased,
  // DuckLake's retry, which re-checks on the new head from the store.
  kReChecked,
};

// Either way the lake holds exactly what DuckLake's own retry leaves, at
// every snapshot, and DuckLake reports the snapshot the commit landed at.
void ExpectLostRace(Settled settled, const std::vector<std::string>& mine,
                    const std::vector<std::string>& theirs) {
  const auto before = NativeMetadataManager::CurrentStatus();
  const Rows native = LostRace("", mine, theirs);
  const auto after = NativeMetadataManager::CurrentStatus();
  const uint64_t rebased = after.rebased_commits - before.rebased_commits;
  const uint64_t checks = after.native_conflict_checks - before.native_conflict_checks;
  if (settled == Settled::kRebased) {
    EXPECT_EQ(rebased, 1u);
    EXPECT_EQ(checks, 0u);
  } else {
    EXPECT_EQ(rebased, 0u);
    EXPECT_GE(checks, 1u);
  }
  const Rows sql = LostRace(", META_NATIVE_MANAGER false", mine, theirs);
  EXPECT_EQ(NativeMetadataManager::CurrentStatus().rebased_commits, after.rebased_commits);
  EXPECT_EQ(native, sql);
  EXPECT_EQ(native.at(0), (Rows::value_type{"6"})) << "DuckLake's last committed snapshot";
}

TEST(InCatalogRetry, AnInsertThatLostToAnInsertIntoAnotherTableIsRebased) {
  ExpectLostRace(Settled::kRebased, {"INSERT INTO lake.t VALUES (7, 'seven')"},
                 {"INSERT INTO lake.u VALUES (11)"});
}

TEST(InCatalogRetry, ADeleteThatLostToInsertsIntoAnotherTableIsRebased) {
  ExpectLostRace(Settled::kRebased, {"DELETE FROM lake.t WHERE i = 5"},
                 {"INSERT INTO lake.u VALUES (11)", "INSERT INTO lake.u VALUES (12)"});
}

// DuckLake allows concurrent inserts into one table: the rebase re-stages
// the row ids and the table's stats on the head's, as DuckLake's retry does.
TEST(InCatalogRetry, AnInsertThatLostToAnInsertIntoTheSameTableIsRebased) {
  // Both raise i's max; only the winner lowers s's min, only this one its max.
  ExpectLostRace(Settled::kRebased, {"INSERT INTO lake.t VALUES (7, 'seven')"},
                 {"INSERT INTO lake.t VALUES (8, 'eight')"});
  // This one lowers i's min below the winner's, and adds a NULL.
  ExpectLostRace(Settled::kRebased, {"INSERT INTO lake.t VALUES (-3, NULL), (0, 'zero')"},
                 {"INSERT INTO lake.t VALUES (2, 'two')", "INSERT INTO lake.t VALUES (-1, 'a')"});
}

TEST(InCatalogRetry, AnInsertThatLostToADataFileOfTheSameTableIsRebased) {
  ExpectLostRace(Settled::kRebased, {"INSERT INTO lake.t VALUES (7, 'seven')"},
                 {"INSERT INTO lake.t SELECT i, 'n' || i FROM range(100) r(i)"});
}

TEST(InCatalogRetry, AnInsertIntoTwoTablesThatLostToAnInsertIntoOneOfThemIsRebased) {
  ExpectLostRace(Settled::kRebased,
                 {"INSERT INTO lake.t VALUES (7, 'seven')", "INSERT INTO lake.u VALUES (70)"},
                 {"INSERT INTO lake.u VALUES (11)"});
}

// DuckLake calls an insert and a delete of one table's inlined rows a
// conflict either way round; the rebase leaves them to DuckLake's check, whose
// error ends the commit and changes nothing.
TEST(InCatalogRetry, InsertsAndDeletesOfOneTableStillConflictAsInDuckLake) {
  const std::vector<std::array<std::string, 3>> races = {
      {"INSERT INTO lake.t VALUES (7, 'seven')", "DELETE FROM lake.t WHERE i = 5",
       "another transaction has deleted inlined data from it"},
      {"DELETE FROM lake.t WHERE i = 5", "INSERT INTO lake.t VALUES (8, 'eight')",
       "another transaction has inserted into it"},
  };
  for (const auto& [mine, theirs, conflict] : races) {
    TempDir dir;
    DuckLakeSession session;
    AttachLake(session, dir);
    session.Run("CREATE TABLE lake.t (i INTEGER, s VARCHAR)");
    session.Run("INSERT INTO lake.t VALUES (1, 'one'), (5, NULL)");
    auto other = OtherConnection(session);
    session.Run("BEGIN");
    session.Run(mine);
    auto won = other->Query(theirs);
    ASSERT_FALSE(won->HasError()) << won->GetError();
    const int64_t head = session.Head();
    const auto before = NativeMetadataManager::CurrentStatus();
    const std::string error = session.Error("COMMIT");
    EXPECT_NE(error.find(conflict), std::string::npos) << mine << " / " << theirs << ": " << error;
    EXPECT_EQ(NativeMetadataManager::CurrentStatus().rebased_commits, before.rebased_commits);
    EXPECT_EQ(session.Head(), head);
  }
}

TEST(InCatalogRetry, AnInsertThatLostToASchemaChangeIsReChecked) {
  ExpectLostRace(Settled::kReChecked, {"INSERT INTO lake.t VALUES (7, 'seven')"},
                 {"ALTER TABLE lake.u ADD COLUMN j INTEGER"});
}

TEST(InCatalogRetry, AnInsertThatWritesADataFileIsReChecked) {
  ExpectLostRace(Settled::kReChecked,
                 {"INSERT INTO lake.t SELECT i, 'n' || i FROM range(100) r(i)"},
                 {"INSERT INTO lake.u VALUES (11)"});
}

TEST(InCatalogRetry, AnInsertThatLostToADataFileOnAnotherTableIsRebased) {
  ExpectLostRace(Settled::kRebased, {"INSERT INTO lake.t VALUES (7, 'seven')"},
                 {"INSERT INTO lake.u SELECT i FROM range(100) r(i)"});
}

// DuckDB may run the COMMIT that DuckLake's loop sends to the metadata
// connection on a task-scheduler worker, not on the thread that runs the
// loop and holds the commit turn. That COMMIT must not wait for the turn
// (session 11 found it did, and hung). With several threads, inserts that
// lost to a schema change of another table each go through the loop's retry,
// so each round is a chance for the worker to take that COMMIT; a watchdog
// turns a hang into a failure.
TEST(InCatalogRetry, ARetriedCommitLandsWhenAWorkerThreadRunsItsCatalogCommit) {
  constexpr int kRounds = 30;
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir);
  session.Run("SET threads = 4");
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("CREATE TABLE lake.u (i INTEGER)");
  auto other = session.host().Connect();
  const auto before = NativeMetadataManager::CurrentStatus();

  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    for (int waited = 0; waited < 600 && !finished; ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!finished) {
      std::fprintf(stderr, "a lost race's retry hung for 60 s (the commit turn deadlock)\n");
      std::_Exit(2);
    }
  });
  for (int round = 0; round < kRounds; ++round) {
    session.Run("BEGIN");
    session.Run("INSERT INTO lake.t VALUES (" + std::to_string(2 * round) + ")");
    auto won = other->Query("INSERT INTO lake.t VALUES (" + std::to_string(2 * round + 1) + ")");
    ASSERT_FALSE(won->HasError()) << won->GetError();
    // Not rebased: a schema change came between.
    auto altered =
        other->Query("ALTER TABLE lake.u ADD COLUMN c" + std::to_string(round) + " INTEGER");
    ASSERT_FALSE(altered->HasError()) << altered->GetError();
    session.Run("COMMIT");
  }
  finished = true;
  watchdog.join();

  const auto after = NativeMetadataManager::CurrentStatus();
  EXPECT_GE(after.native_conflict_checks - before.native_conflict_checks,
            static_cast<uint64_t>(kRounds));
  const int rows = 2 * kRounds;
  EXPECT_EQ(
      session.Query("SELECT count(*), count(DISTINCT i), sum(i) FROM lake.t"),
      (Rows{{std::to_string(rows), std::to_string(rows), std::to_string(rows * (rows - 1) / 2)}}));
}

// META_NATIVE_MANAGER false: DuckLake hands its loop to the manager all the
// same (the flag is the catalog's), and the manager runs it with the user's
// settings, as DuckLake would have.
TEST(InCatalogRetry, WithTheManagerOffDuckLakesOwnLoopRuns) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir, ", META_NATIVE_MANAGER false");
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  const uint64_t before = InCatalogCommits();
  for (int k = 0; k < 3; ++k) session.Run("INSERT INTO lake.t VALUES (" + std::to_string(k) + ")");
  EXPECT_EQ(InCatalogCommits(), before);
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (Rows{{"3"}}));
}

}  // namespace
}  // namespace moraine::test
