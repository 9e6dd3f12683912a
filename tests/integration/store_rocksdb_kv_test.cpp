// The KvStore contract (support/kv_store_contract.h) against real RocksDB, on
// disk and in memory, and what is particular to RocksDB locations.

#include <gtest/gtest.h>

#include <rocksdb/db.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "store/error.h"
#include "store/kv_store.h"
#include "store/rocksdb/rocksdb_info_log.h"
#include "store/write_batch.h"
#include "support/kv_store_contract.h"
#include "support/temp_dir.h"

namespace moraine::store {
namespace {

using test::KvStoreContract;

// A fresh directory per location, under one temp dir for the binary.
std::string NewDirectory() {
  static test::TempDir dir;
  static std::atomic<int> counter{0};
  return dir.path("lake-" + std::to_string(++counter) + ".moraine");
}

// Named memory stores, so a reopen in the process sees them.
std::string NewMemoryName() {
  static std::atomic<int> counter{0};
  return "memory://kv-test-" + std::to_string(++counter);
}

const test::KvBackend kDisk{.name = "Disk", .new_location = NewDirectory};
const test::KvBackend kMemory{.name = "Memory", .new_location = NewMemoryName};

INSTANTIATE_TEST_SUITE_P(RocksDB, KvStoreContract, ::testing::Values(&kDisk, &kMemory),
                         test::KvBackendName);

TEST(StoreKvMemory, PrivateMemoryStoresAreIndependent) {
  KvOptions options;
  options.location = "memory://";
  auto a = OpenKvStore(options);
  auto b = OpenKvStore(options);  // no lock conflict: each is its own store
  WriteBatch batch;
  batch.Put("k", "v");
  a->Write(batch);
  EXPECT_EQ(GetLatest(*b, "k"), std::nullopt);
}

TEST(StoreKvDisk, DirectoryIsCreatedIfAbsent) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("a/b/c.moraine");
  auto store = OpenKvStore(options);
  EXPECT_TRUE(std::filesystem::is_directory(options.location));
}

size_t LogFiles(const std::string& directory) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() == ".log") count++;
  }
  return count;
}

size_t FilesEndingIn(const std::string& directory, const std::string& suffix) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().filename().string().ends_with(suffix)) count++;
  }
  return count;
}

// Whether RocksDB, opening a copy of the directory as a writer and releasing
// its first snapshot (as the first transaction of a session does), wants a
// compaction: it would start one on its threads during the attach.
uint64_t CompactionPendingAtOpen(const std::string& directory) {
  test::TempDir scratch;
  const std::string copy = scratch.path("copy");
  std::filesystem::copy(directory, copy);
  rocksdb::Options rocks;
  rocks.disable_auto_compactions = true;  // see what it would start, start nothing
  rocksdb::DB* db = nullptr;
  const auto status = rocksdb::DB::Open(rocks, copy, &db);
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::unique_ptr<rocksdb::DB> closes(db);
  uint64_t pending = 99;
  if (db) {
    db->ReleaseSnapshot(db->GetSnapshot());
    db->GetIntProperty(rocksdb::DB::Properties::kCompactionPending, &pending);
  }
  return pending;
}

// A writer flushes what it wrote as it closes: the next open replays no log
// (after a long writing session that replay cost the first ATTACH a second
// of CPU), and it lets the compactions RocksDB wants finish, so that no
// open starts one.
TEST(StoreKvDisk, AWriterLeavesNoLogToReplayAndNoCompactionToRun) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  constexpr int kSessions = 12;
  for (int session = 0; session < kSessions; session++) {
    {
      auto store = OpenKvStore(options);
      WriteBatch batch;
      batch.Put("k" + std::to_string(session), "v" + std::to_string(session));
      batch.Put("head", std::to_string(session));  // as every commit does
      // A version ended, as DuckLake's updates end them: deletions are what
      // makes RocksDB want to compact a bottommost file.
      batch.Delete("version" + std::to_string(session - 1));
      batch.Put("version" + std::to_string(session), "v");
      store->Write(batch);
    }
    EXPECT_EQ(CompactionPendingAtOpen(options.location), 0u) << "after session " << session;
    for (const auto& entry : std::filesystem::directory_iterator(options.location)) {
      if (entry.path().extension() == ".log") {
        EXPECT_EQ(std::filesystem::file_size(entry.path()), 0u)
            << entry.path().filename() << " after session " << session;
      }
    }
    // At most three level-0 files, and the one their compactions made.
    EXPECT_LE(FilesEndingIn(options.location, ".sst"), 4u) << "after session " << session;
  }
  auto store = OpenKvStore(options);
  for (int session = 0; session < kSessions; session++) {
    EXPECT_EQ(GetLatest(*store, "k" + std::to_string(session)),
              std::optional<std::string>("v" + std::to_string(session)));
  }
}

// The number of level-0 table files of the store at `location`.
uint64_t LevelZeroFiles(const std::string& location) {
  rocksdb::DB* db = nullptr;
  rocksdb::Options rocks;
  EXPECT_TRUE(rocksdb::DB::OpenForReadOnly(rocks, location, &db).ok());
  std::unique_ptr<rocksdb::DB> closes(db);
  std::string files;
  if (db) db->GetProperty("rocksdb.num-files-at-level0", &files);
  return files.empty() ? 99 : std::stoull(files);
}

// A session that rewrote much of the store (as DuckLake's DELETE of many
// inlined rows rewrites their batches) leaves level 0 merged down, so that a
// scan does not read every key twice; a short session that wrote little
// leaves its small file to RocksDB.
TEST(StoreKvDisk, ASessionThatRewroteMuchOfTheStoreLeavesItMerged) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  const auto write_all = [&](const std::string& value) {
    auto store = OpenKvStore(options);
    WriteBatch batch;
    // More than the 4 MiB below which a session's file is left to RocksDB.
    for (int key = 0; key < 6000; key++) batch.Put("k" + std::to_string(key), value);
    store->Write(batch);
  };
  write_all(std::string(1000, 'a'));
  EXPECT_EQ(FilesEndingIn(options.location, ".sst"), 1u);
  write_all(std::string(1000, 'b'));
  EXPECT_EQ(FilesEndingIn(options.location, ".sst"), 1u) << "the rewrite was not merged";
  EXPECT_EQ(LevelZeroFiles(options.location), 0u);
  for (int session = 0; session < 2; session++) {
    auto store = OpenKvStore(options);
    WriteBatch batch;
    batch.Put("small" + std::to_string(session), "v");
    store->Write(batch);
  }
  EXPECT_EQ(FilesEndingIn(options.location, ".sst"), 3u) << "small sessions' files were merged";
  EXPECT_EQ(LevelZeroFiles(options.location), 2u);
  auto store = OpenKvStore(options);
  EXPECT_EQ(GetLatest(*store, "k5999"), std::optional<std::string>(std::string(1000, 'b')));
  EXPECT_EQ(GetLatest(*store, "small1"), std::optional<std::string>("v"));
}

// One session that writes one key, as a store's first session does.
void WriteOneKeyAndClose(const KvOptions& options) {
  auto store = OpenKvStore(options);
  WriteBatch batch;
  batch.Put("k", "v");
  store->Write(batch);
}

// RocksDB's info log keeps warnings and errors, in a file made at the first
// one: a healthy session writes no LOG at all (its option dumps cost every
// ATTACH CPU), and a warning is still there to read.
TEST(StoreKvDisk, TheInfoLogKeepsWarningsOnly) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  WriteOneKeyAndClose(options);
  OpenKvStore(options).reset();
  EXPECT_FALSE(std::filesystem::exists(options.location + "/LOG"));

  auto log = RocksDbInfoLog::Open(options.location);
  rocksdb::Info(log, "an info line %d", 1);
  rocksdb::Header(log, "a header line %d", 2);
  EXPECT_FALSE(std::filesystem::exists(options.location + "/LOG"));
  rocksdb::Warn(log, "a warning line %d", 3);
  log.reset();
  std::ifstream file(options.location + "/LOG");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("a warning line 3"), std::string::npos) << text;
  EXPECT_EQ(text.find("info line"), std::string::npos) << text;
  EXPECT_EQ(text.find("header line"), std::string::npos) << text;
}

// RocksDB 7.8 leaves the empty log of every open that writes nothing; a
// lake only read by its sessions gathered one file per session, each listed
// and replayed at every later open.
TEST(StoreKvDisk, SessionsThatWriteNothingDoNotGatherLogFiles) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  WriteOneKeyAndClose(options);
  for (int session = 0; session < 30; session++) {
    auto store = OpenKvStore(options);
    EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("v"));
  }
  EXPECT_LE(LogFiles(options.location), 6u);
  // Nor with the files of the tombstones that moved the logs on.
  EXPECT_LE(FilesEndingIn(options.location, ".sst"), 2u);
  auto store = OpenKvStore(options);
  EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("v"));
  // The tombstone that moved the log on is no key a scan returns.
  std::vector<std::string> keys;
  auto snapshot = store->GetSnapshot();
  for (auto it = snapshot->Scan(KeyRange{}); it->Valid(); it->Next()) {
    keys.emplace_back(it->key());
  }
  EXPECT_EQ(keys, std::vector<std::string>{"k"});
}

// The options of a store in `dir` that a first session left with one key.
KvOptions StoreWithOneKey(const test::TempDir& dir) {
  KvOptions options;
  options.location = dir.path("lake.moraine");
  WriteOneKeyAndClose(options);
  return options;
}

std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A writer of a store that exists opens RocksDB read-only until its first
// write: a session that only reads leaves the directory as it found it (no
// options file, manifest or log of its own), and is still its one writer.
TEST(StoreKvDisk, AWriterThatOnlyReadsLeavesTheStoreAsItFoundIt) {
  test::TempDir dir;
  const KvOptions options = StoreWithOneKey(dir);
  const auto before = FileNames(options.location);
  {
    auto store = OpenKvStore(options);
    EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("v"));
    EXPECT_THROW(OpenKvStore(options), StoreLockedError);  // a second writer, even now
  }
  EXPECT_EQ(FileNames(options.location), before);
}

// The first write opens the store read-write under the hood; a snapshot
// taken before it keeps its view, and later ones see the write.
TEST(StoreKvDisk, TheFirstWriteOpensTheStoreForWritingAndEarlierSnapshotsHoldTheirView) {
  test::TempDir dir;
  const KvOptions options = StoreWithOneKey(dir);
  {
    auto store = OpenKvStore(options);
    auto earlier = store->GetSnapshot();
    WriteBatch batch;
    batch.Put("k", "w");
    batch.Put("n", "1");
    ASSERT_TRUE(store->WriteIfHeadUnchanged("k", std::optional<std::string>("v"), batch));
    EXPECT_EQ(earlier->Get("k"), std::optional<std::string>("v"));
    EXPECT_EQ(earlier->Get("n"), std::nullopt);
    EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("w"));
    EXPECT_THROW(OpenKvStore(options), StoreLockedError);
    batch = WriteBatch();
    batch.Put("n", "2");
    store->Write(batch);
    EXPECT_EQ(GetLatest(*store, "n"), std::optional<std::string>("2"));
  }
  auto again = OpenKvStore(options);
  EXPECT_EQ(GetLatest(*again, "k"), std::optional<std::string>("w"));
  EXPECT_EQ(GetLatest(*again, "n"), std::optional<std::string>("2"));
}

uint64_t BytesInLogs(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".log") bytes += entry.file_size();
  }
  return bytes;
}

// A log a crashed writer left is recovered by the next writer's open, read-
// write at once (RocksDB flushes it), not replayed again by every session
// that only reads.
TEST(StoreKvDisk, AWriterOpensACrashedStoreForWritingAtOnce) {
  test::TempDir dir;
  const KvOptions options = StoreWithOneKey(dir);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto store = OpenKvStore(options);
    WriteBatch batch;
    batch.Put("k", "after");
    store->Write(batch);
    _exit(0);  // no close: the write stays in the log only
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(BytesInLogs(options.location), 0u);

  auto store = OpenKvStore(options);
  EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("after"));
  EXPECT_EQ(BytesInLogs(options.location), 0u);  // recovered into a table file
}

}  // namespace
}  // namespace moraine::store
