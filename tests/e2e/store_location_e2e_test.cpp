// Where a store may be created and what a user reads when it cannot be
// opened: a store is made only in an absent or empty directory, a refused
// ATTACH leaves nothing behind, a full filesystem is an error the session
// recovers from, and each failure reads as one sentence.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "store/key.h"
#include "store/rocksdb/rocksdb_store.h"
#include "support/directory_fingerprint.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "support/small_filesystem.h"

namespace moraine {
namespace {

namespace fs = std::filesystem;

class StoreLocation : public test::MoraineLakeTest {
 protected:
  static std::string AttachAt(const std::string& store, const std::string& files) {
    return "ATTACH 'ducklake:moraine:" + store + "' AS lake (DATA_PATH '" + files + "')";
  }

  // Layer prefixes that once stacked up in front of one message.
  static void ExpectOneVoice(const std::string& error) {
    for (const char* stutter : {"moraine: ", "conflict: conflict", "store error (",
                                "commit failed (", "store locked: ", "i/o error: "}) {
      EXPECT_EQ(error.find(stutter), std::string::npos) << "'" << stutter << "' in: " << error;
    }
  }
};

TEST_F(StoreLocation, ANonEmptyDirectoryThatIsNoStoreIsRefusedUntouched) {
  fs::create_directories(Store());
  std::ofstream(fs::path(Store()) / "notes.txt") << "not a catalog";
  const auto before = test::FingerprintOf(Store());
  test::DuckLakeSession session;
  const std::string error = session.Error(AttachLake());
  EXPECT_NE(error.find("is not a moraine store: the directory is not empty (it holds notes.txt)"),
            std::string::npos)
      << error;
  ExpectOneVoice(error);
  EXPECT_EQ(test::FingerprintOf(Store()), before);
  EXPECT_FALSE(fs::exists(fs::path(Store()) / "LOCK"));
  EXPECT_FALSE(fs::exists(fs::path(Store()) / "LOG"));
}

TEST_F(StoreLocation, AFileIsNotAStore) {
  std::ofstream(Store()) << "a file";
  test::DuckLakeSession session;
  const std::string error = session.Error(AttachLake());
  EXPECT_NE(error.find("is not a moraine store: it is not a directory"), std::string::npos)
      << error;
  EXPECT_EQ(test::ReadWholeFile(Store()), "a file");
}

TEST_F(StoreLocation, ARefusedAttachLeavesNothingBehind) {
  test::DuckLakeSession session;
  const std::string absent = session.Error(AttachLake(", READ_ONLY"));
  EXPECT_NE(absent.find("no moraine store at '" + Store() + "'"), std::string::npos) << absent;
  EXPECT_FALSE(fs::exists(Store()));

  fs::create_directories(Store());
  session.Error(AttachLake(", READ_ONLY"));
  EXPECT_TRUE(fs::is_empty(Store()));
  // An empty directory is where a store may be created.
  session.Run(AttachLake());
  session.Run("CREATE TABLE lake.t (i INTEGER)");
}

TEST_F(StoreLocation, AKeyValueDatabaseOfAnotherProgramIsNotAStore) {
  {
    auto other = store::RocksDbStore::Open({.location = Store()});
    store::WriteBatch batch;
    batch.Put("someone else's key", "value");
    other->Write(batch);
  }
  test::DuckLakeSession session;
  const std::string error = session.Error(AttachLake());
  EXPECT_NE(error.find("is not a moraine store"), std::string::npos) << error;
}

TEST_F(StoreLocation, AMorainePrefixedPathWithTypeMoraineNamesThePathItself) {
  fs::remove_all(fs::current_path() / "moraine:");
  test::DuckLakeSession session;
  session.Run("ATTACH 'moraine:" + Store() + "' AS m (TYPE moraine)");
  session.Run("DETACH m");
  EXPECT_TRUE(fs::exists(fs::path(Store()) / "CURRENT"));
  EXPECT_FALSE(fs::exists(fs::current_path() / "moraine:"));
}

TEST_F(StoreLocation, ASecondWriterIsRefusedInOneSentence) {
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
  }
  auto holder = store::RocksDbStore::Open({.location = Store(), .create_if_missing = false});
  test::DuckLakeSession session;
  const std::string error = session.Error(AttachLake());
  EXPECT_NE(error.find("is already open read-write"), std::string::npos) << error;
  ExpectOneVoice(error);
}

TEST_F(StoreLocation, ALostRaceThatRunsOutOfRetriesReadsAsOneConflict) {
  test::DuckLakeSession first, second;
  first.Run(AttachLake());
  first.Run("CREATE TABLE lake.t (i INTEGER)");
  second.Run(AttachLake());
  first.Run("SET ducklake_max_retry_count = 0");
  first.Run("BEGIN");
  first.Run("INSERT INTO lake.t VALUES (1)");
  second.Run("INSERT INTO lake.t VALUES (2)");
  const std::string error = first.Error("COMMIT");
  EXPECT_NE(error.find("conflict"), std::string::npos) << error;
  // DuckLake's own words for retries that ran out.
  EXPECT_NE(error.find("Exceeded the maximum retry count"), std::string::npos) << error;
  ExpectOneVoice(error);
}

TEST_F(StoreLocation, AFullFilesystemIsAnErrorAndTheSessionRecoversWhenSpaceReturns) {
  test::SmallFilesystem disk(8);
  MORAINE_REQUIRE_MOUNTED(disk);
  const std::string store = disk.path("lake.moraine");
  const std::string attach = AttachAt(store, disk.path("files") + "/");
  {
    test::DuckLakeSession session;
    session.Run(attach);
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1)");

    // A commit larger than what is left in the log's last page: a table of
    // 400 columns is about 40 KB of catalog rows.
    std::string wide = "CREATE TABLE lake.wide (c0 INTEGER";
    for (int c = 1; c < 400; ++c) wide += ", c" + std::to_string(c) + " INTEGER";
    wide += ")";
    disk.Fill();
    const std::string full = session.Error(wide);
    EXPECT_NE(full.find("No space left on device"), std::string::npos) << full;
    ExpectOneVoice(full);
    disk.Free();
    session.Run("INSERT INTO lake.t VALUES (3)");
    session.Run(wide);
    EXPECT_EQ(session.Query("SELECT i FROM lake.t ORDER BY i"), (test::Rows{{"1"}, {"3"}}));
  }

  // A read-write ATTACH on a full filesystem is an error, not an abort (it
  // may also succeed, when what it writes fits in pages already allocated),
  // and a store that could not be created leaves no directory behind.
  disk.Fill();
  {
    test::DuckLakeSession session;
    auto result = session.connection().Query(attach);
    if (result->HasError()) {
      EXPECT_NE(result->GetError().find("No space left on device"), std::string::npos)
          << result->GetError();
    }
  }
  {
    test::DuckLakeSession session;
    const std::string elsewhere = disk.path("other.moraine");
    const std::string full = session.Error(AttachAt(elsewhere, disk.path("other") + "/"));
    EXPECT_NE(full.find("No space left on device"), std::string::npos) << full;
    ExpectOneVoice(full);
    EXPECT_FALSE(fs::exists(elsewhere));
  }
  disk.Free();
  test::DuckLakeSession session;
  session.Run(attach);
  EXPECT_EQ(session.Query("SELECT i FROM lake.t ORDER BY i"), (test::Rows{{"1"}, {"3"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.wide"), (test::Rows{{"0"}}));
}

}  // namespace
}  // namespace moraine
