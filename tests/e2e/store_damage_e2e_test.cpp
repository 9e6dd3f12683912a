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
  void RunInAKilledWriter(const std::vector<std::string>& statements) {
    std::string sql = AttachLake();
    for (const auto& statement : statements) sql += "; " + statement;
    const auto child =
        test::RunCommand("MORAINE_TEST_CRASH_AT=close.before_flush " +
                         std::string(MORAINE_EXECUTABLE) + " sql -c \"" + sql + "\" 2>&1");
    ASSERT_EQ(child.exit_code, 128 + 9) << "the writer did not die as it closed:\n" << child.output;
  }

  std::string NewestFile(const std::string& suffix) const {
    std::string newest;
    for (const auto& entry : fs::directory_iterator(Store())) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with(suffix) && name > newest) newest = name;
    }
    return (fs::path(Store()) / newest).string();
  }

  // Attaching must fail; returns DuckDB's message.
  std::string AttachError(const std::string& options = "") {
    test::DuckLakeSession session;
    return session.Error(AttachLake(options));
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
  const auto before = test::FingerprintOf(Store());

  for (const std::string options : {"", ", READ_ONLY"}) {
    const std::string error = AttachError(options);
    EXPECT_NE(error.find("is damaged and was not opened"), std::string::npos) << error;
    EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
    EXPECT_EQ(test::FingerprintOf(Store()), before) << options;
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
  const auto before = test::FingerprintOf(Store());
  for (const std::string options : {"", ", READ_ONLY"}) {
    const std::string error = AttachError(options);
    EXPECT_NE(error.find("has a record of type 5 at offset 0"), std::string::npos) << error;
    EXPECT_EQ(test::FingerprintOf(Store()), before) << options;
  }
}

TEST_F(StoreDamage, AnIncompleteLastLogRecordIsATornUnacknowledgedWriteAndOpens) {
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1)");
  }
  RunInAKilledWriter({"INSERT INTO lake.t VALUES (2)"});
  // Cut the last record short, as a crash in the middle of its write does.
  const std::string log = NewestFile(".log");
  const auto size = fs::file_size(log);
  ASSERT_GT(size, 64u);
  fs::resize_file(log, size - 20);
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
