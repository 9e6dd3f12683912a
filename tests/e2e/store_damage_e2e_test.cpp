// Damage that disks, backup tools and full filesystems really do, met through
// DuckLake SQL: the store is refused with an error that names what is wrong
// and changes nothing, never recreated, truncated to an older state or served
// from one, and the process stays alive.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "store/rocksdb/rocksdb_store.h"
#include "support/directory_fingerprint.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "support/run_process.h"

namespace moraine {
namespace {

namespace fs = std::filesystem;

class StoreDamage : public test::MoraineLakeTest {
 protected:
  // Every store here is damaged on purpose.
  StoreDamage() { verify_store_at_teardown_ = false; }

  // Opens the store alone and persists its memtable into a table file, so
  // that what came before is in an SST rather than only in the log.
  void FlushStore() {
    auto store = store::RocksDbStore::Open({.location = Store(), .create_if_missing = false});
    store->Flush();
  }

  // Runs `statements` on the lake in a `moraine sql` child that acknowledges
  // them all and is killed as its store closes, before the close flushes the
  // memtable: the log holds every commit, as a writer that crashed leaves it.
  // `crash_at` moves the death to another crash point (test_hooks.h).
  void RunInAKilledWriter(const std::vector<std::string>& statements,
                          const std::string& crash_at = "close.before_flush") {
    std::string sql = AttachLake();
    for (const auto& statement : statements) sql += "; " + statement;
    const auto child =
        test::RunCommand("MORAINE_TEST_CRASH_AT=" + crash_at + " " +
                         std::string(MORAINE_EXECUTABLE) + " sql -c \"" + sql + "\" 2>&1");
    ASSERT_EQ(child.exit_code, 128 + 9) << "the writer did not die at " << crash_at << ":\n"
                                        << child.output;
  }

  // The store's file with the greatest name that ends with `suffix` (and
  // starts with `prefix`): RocksDB numbers its files in order.
  std::string NewestFile(const std::string& suffix, const std::string& prefix = "") const {
    std::string newest;
    for (const auto& entry : fs::directory_iterator(Store())) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(prefix) && name.ends_with(suffix) && name > newest) newest = name;
    }
    return (fs::path(Store()) / newest).string();
  }

  // Attaching must fail; returns DuckDB's message.
  std::string AttachError(const std::string& options = "") {
    test::DuckLakeSession session;
    return session.Error(AttachLake(options));
  }

  // A session that creates lake.t, inserts 1 and closes cleanly.
  void CreateTableHoldingOne() {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1)");
  }

  // Attaches read-write, then READ_ONLY; each must be refused and leave the
  // store byte for byte as it was. Their errors, in that order.
  std::vector<std::string> RefusedAttachErrors() {
    const auto before = test::FingerprintOf(Store());
    std::vector<std::string> errors;
    for (const std::string options : {"", ", READ_ONLY"}) {
      errors.push_back(AttachError(options));
      EXPECT_EQ(test::FingerprintOf(Store()), before) << options;
    }
    return errors;
  }

  test::Rows Values(const std::string& options = "") {
    test::DuckLakeSession session;
    session.Run(AttachLake(options));
    return session.Query("SELECT i FROM lake.t ORDER BY i");
  }
};

TEST_F(StoreDamage, ADeletedCurrentFileIsRefusedAndRepairBringsEveryCommitBack) {
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t SELECT range FROM range(1000)");
  }
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("INSERT INTO lake.t VALUES (5000)");
  }
  fs::remove(fs::path(Store()) / "CURRENT");
  const auto before = test::FingerprintOf(Store());

  // Twice: the first refusal must not leave a new, empty store behind that a
  // second ATTACH would open (and let RocksDB delete the old files from).
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string error = AttachError();
    EXPECT_NE(error.find("CURRENT file is missing"), std::string::npos) << error;
    EXPECT_NE(error.find("moraine repair " + Store()), std::string::npos) << error;
    EXPECT_EQ(test::FingerprintOf(Store()), before) << "attempt " << attempt;
  }
  const std::string read_only = AttachError(", READ_ONLY");
  EXPECT_NE(read_only.find("CURRENT file is missing"), std::string::npos) << read_only;
  EXPECT_EQ(test::FingerprintOf(Store()), before);

  store::RocksDbStore::Repair(Store());
  test::DuckLakeSession session;
  session.Run(AttachLake());
  EXPECT_EQ(session.Query("SELECT count(*), max(i) FROM lake.t"), (test::Rows{{"1001", "5000"}}));
}

TEST_F(StoreDamage, ADamagedLogRecordIsRefusedRatherThanDroppingLaterCommits) {
  std::vector<std::string> statements = {"CREATE TABLE lake.t (i INTEGER)"};
  for (int i = 1; i <= 40; ++i)
    statements.push_back("INSERT INTO lake.t VALUES (" + std::to_string(i) + ")");
  RunInAKilledWriter(statements);
  const std::string log = NewestFile(".log");
  std::string bytes = test::ReadWholeFile(log);
  ASSERT_GT(bytes.size(), 1000u);
  bytes.replace(bytes.size() / 2, 4, "\xde\xad\xbe\xef");
  std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("is damaged and was not opened"), std::string::npos) << error;
    EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
  }
}

TEST_F(StoreDamage, ALogRecordOfARecycledLogsTypeIsRefusedRatherThanEndingTheLog) {
  std::vector<std::string> statements = {"CREATE TABLE lake.t (i INTEGER)"};
  for (int i = 1; i <= 5; ++i)
    statements.push_back("INSERT INTO lake.t VALUES (" + std::to_string(i) + ")");
  RunInAKilledWriter(statements);
  // The first record's type byte, full (1) flipped to recyclable full (5):
  // RocksDB would read it as the end of the log (read-write) or spin on it
  // forever (read-only).
  const std::string log = NewestFile(".log");
  std::string bytes = test::ReadWholeFile(log);
  ASSERT_GT(bytes.size(), 7u);
  ASSERT_EQ(bytes[6], '\x01');
  bytes[6] = '\x05';
  std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("has a record of type 5 at offset 0"), std::string::npos) << error;
  }
}

TEST_F(StoreDamage, AnIncompleteLastLogRecordIsATornUnacknowledgedWriteAndOpens) {
  CreateTableHoldingOne();
  // The writer dies halfway through the log record of INSERT 2, which was
  // never acknowledged: the store opens at the commit before it, and the
  // high-water mark, which only acknowledged writes raise, agrees.
  RunInAKilledWriter({"INSERT INTO lake.t VALUES (2)"}, "commit.torn_log_write");
  EXPECT_EQ(Values(), (test::Rows{{"1"}}));
  EXPECT_EQ(Values(", READ_ONLY"), (test::Rows{{"1"}}));
}

// The failures a store's own files cannot show: each leaves files that
// RocksDB alone would open as an older catalog, without the acknowledged
// commits. The high-water mark, kept apart from them, refuses them.
TEST_F(StoreDamage, AnAcknowledgedLogCutShortIsRefusedNotServedShort) {
  RunInAKilledWriter({"CREATE TABLE lake.t (i INTEGER)", "INSERT INTO lake.t VALUES (1)",
                      "INSERT INTO lake.t VALUES (2)"});
  // The last record, INSERT 2, acknowledged, cut off as a lost page of the
  // log would cut it: RocksDB reads a torn tail, never acknowledged.
  const std::string log = NewestFile(".log");
  const auto size = fs::file_size(log);
  ASSERT_GT(size, 64u);
  fs::resize_file(log, size - 20);
  const auto before = test::FingerprintOf(Store());
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("is damaged and was not opened"), std::string::npos) << error;
    EXPECT_NE(error.find("was acknowledged (MORAINE-HIGH-WATER)"), std::string::npos) << error;
    EXPECT_NE(error.find("moraine repair " + Store()), std::string::npos) << error;
  }
  // `moraine verify` says the same, and changes nothing either.
  const auto verify =
      test::RunCommand(std::string(MORAINE_EXECUTABLE) + " verify " + Store() + " 2>&1");
  EXPECT_NE(verify.exit_code, 0) << verify.output;
  EXPECT_NE(verify.output.find("was acknowledged (MORAINE-HIGH-WATER)"), std::string::npos)
      << verify.output;
  EXPECT_EQ(test::FingerprintOf(Store()), before);
  // A repair salvages what is there and starts the mark again from it.
  store::RocksDbStore::Repair(Store());
  EXPECT_EQ(Values(), (test::Rows{{"1"}}));
}

TEST_F(StoreDamage, AManifestCutBackToAnEarlierEditIsRefusedNotServedShort) {
  CreateTableHoldingOne();
  std::string manifest;
  uintmax_t before_flush = 0;
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("INSERT INTO lake.t VALUES (2)");
    // The writer's manifest as it stands before the close flushes INSERT 2
    // into a table file and drops the log that held it.
    manifest = NewestFile("", "MANIFEST-");
    before_flush = fs::file_size(manifest);
  }
  ASSERT_TRUE(fs::exists(manifest));
  ASSERT_GT(fs::file_size(manifest), before_flush);
  fs::resize_file(manifest, before_flush);
  // The cut manifest lists a log the flush deleted and a table file the
  // close's compaction merged away; whichever check meets it first, the
  // refusal names the damage and changes nothing (a read-write open would
  // otherwise delete the files the cut manifest no longer lists).
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("is damaged and was not opened"), std::string::npos) << error;
    EXPECT_TRUE(error.find(fs::path(manifest).filename().string()) != std::string::npos ||
                error.find("was acknowledged (MORAINE-HIGH-WATER)") != std::string::npos)
        << error;
  }
}

// RocksDB's track_and_verify_wals_in_manifest (on) records a log in the
// manifest only once it is closed for a newer one, which a store of one
// column family does at a flush that leaves the log with nothing to replay:
// it never refuses the loss of the live log and its synced, acknowledged
// records. The high-water mark does.
TEST_F(StoreDamage, ASyncedLogWithRecordsThatGoesMissingIsRefused) {
  RunInAKilledWriter({"CREATE TABLE lake.t (i INTEGER)", "INSERT INTO lake.t VALUES (1)"});
  const std::string log = NewestFile(".log");
  ASSERT_GT(fs::file_size(log), 0u);
  fs::remove(log);
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("is damaged and was not opened"), std::string::npos) << error;
    EXPECT_NE(error.find("was acknowledged (MORAINE-HIGH-WATER)"), std::string::npos) << error;
  }
}

TEST_F(StoreDamage, AMissingOrDamagedHighWaterFileIsRefused) {
  CreateTableHoldingOne();
  const fs::path mark = fs::path(Store()) / "MORAINE-HIGH-WATER";
  const std::string bytes = test::ReadWholeFile(mark.string());
  fs::remove(mark);
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("high-water file MORAINE-HIGH-WATER is missing"), std::string::npos)
        << error;
  }
  // Both slots flipped: neither can be trusted.
  std::string damaged = bytes;
  damaged[10] ^= 0x55;
  damaged[4096 + 10] ^= 0x55;
  std::ofstream(mark, std::ios::binary) << damaged;
  for (const std::string& error : RefusedAttachErrors()) {
    EXPECT_NE(error.find("neither of its slots is whole"), std::string::npos) << error;
  }
  std::ofstream(mark, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(Values(), (test::Rows{{"1"}}));
}

TEST_F(StoreDamage, AMissingOrTruncatedTableFileIsRefusedByReadOnlyAttachesToo) {
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1), (2)");
  }
  FlushStore();
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("INSERT INTO lake.t VALUES (3)");
  }
  FlushStore();
  const std::string newest = NewestFile(".sst");
  const std::string bytes = test::ReadWholeFile(newest);

  // Truncated, then deleted: neither a reader nor a writer may serve the
  // older catalog that the remaining files describe.
  fs::resize_file(newest, bytes.size() / 2);
  for (const std::string options : {", READ_ONLY", ""}) {
    const std::string error = AttachError(options);
    EXPECT_NE(error.find("damaged"), std::string::npos) << options << ": " << error;
  }
  fs::remove(newest);
  for (const std::string options : {", READ_ONLY", ""}) {
    const std::string error = AttachError(options);
    EXPECT_NE(error.find("damaged"), std::string::npos) << options << ": " << error;
  }
  std::ofstream(newest, std::ios::binary) << bytes;
  EXPECT_EQ(Values(", READ_ONLY"), (test::Rows{{"1"}, {"2"}, {"3"}}));
}

}  // namespace
}  // namespace moraine
