// Online backup and restore (tools/store_backup.h) on real RocksDB stores:
// a restore holds exactly the keys and values of the snapshot backed up,
// while four writers commit throughout; a later backup in the same
// repository copies only what changed; bad input is refused with a typed
// error and changes nothing.
#include "tools/store_backup.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>
#include <tuple>

#include "commit/lake/store_records.h"
#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "support/directory_fingerprint.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"
#include "tools/store_verifier.h"

namespace moraine {
namespace {

namespace fs = std::filesystem;
using commit::BeginRowTransaction;
using test::kNull;

using KeyValues = std::map<std::string, std::string>;

KeyValues Everything(const store::KvSnapshot& snapshot) { return test::AllKeyValues(snapshot); }

// Commits snapshot `id` with a row of ducklake_snapshot_changes that is
// `padding` bytes long, as a DuckLake commit does.
void CommitSnapshot(const std::shared_ptr<store::KvStore>& store, int64_t id, size_t padding = 64) {
  auto txn = BeginRowTransaction(store);
  txn->Insert("ducklake_snapshot", {id, kNull, int64_t{0}, int64_t{1}, int64_t{0}});
  txn->Insert("ducklake_snapshot_changes", {id, std::string(padding, 'c'), kNull, kNull, kNull});
  txn->Commit();
}

class StoreBackupTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = test::NewStoreLikeDuckLake(dir_.path("lake.moraine")); }

  std::shared_ptr<store::KvStore> store_;
  test::TempDir dir_;
};

TEST_F(StoreBackupTest, ARestoreHoldsTheSnapshotBackedUpWhileFourWritersCommit) {
  for (int64_t id = 1; id <= 200; ++id) CommitSnapshot(store_, id);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> next{201};
  std::atomic<int> commits{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&] {
      while (!stop.load()) {
        const int64_t id = next.fetch_add(1);
        try {
          CommitSnapshot(store_, id, 200);
          commits.fetch_add(1);
        } catch (const store::ConflictError&) {
          // Another writer took the head first: a lost race, as in DuckLake.
        }
      }
    });
  }
  while (commits.load() < 20) std::this_thread::yield();
  const auto snapshot = store_->GetSnapshot();
  const auto report = tools::BackupStore(*snapshot, "lake.moraine", dir_.path("backups"));
  const int during = commits.load();
  while (commits.load() < during + 20) std::this_thread::yield();
  stop = true;
  for (auto& writer : writers) writer.join();

  const tools::BackupManifest restored =
      tools::RestoreStore(dir_.path("backups"), std::nullopt, dir_.path("restored"));
  EXPECT_EQ(restored, report.manifest);
  const KeyValues expected = Everything(*snapshot);
  EXPECT_EQ(restored.keys, expected.size());
  auto copy = store::OpenKvStore({.location = dir_.path("restored"), .read_only = true});
  EXPECT_EQ(Everything(*copy->GetSnapshot()), expected);
  EXPECT_NE(Everything(*store_->GetSnapshot()), expected);  // the writers went on
  std::cout << "backed up " << report.manifest.keys << " keys at snapshot "
            << report.manifest.head_snapshot << " while " << during << " commits landed\n";
}

TEST_F(StoreBackupTest, ALaterBackupCopiesOnlyWhatChanged) {
  for (int64_t id = 1; id <= 5000; ++id) CommitSnapshot(store_, id);
  const auto first = tools::BackupStore(*store_->GetSnapshot(), "lake", dir_.path("backups"));
  EXPECT_EQ(first.bytes_copied, [&] {
    uint64_t bytes = 0;
    for (const auto& chunk : first.manifest.chunks) bytes += chunk.bytes;
    return bytes;
  }());
  for (int64_t id = 5001; id <= 5010; ++id) CommitSnapshot(store_, id);
  const auto second = tools::BackupStore(*store_->GetSnapshot(), "lake", dir_.path("backups"));
  EXPECT_EQ(second.manifest.id, first.manifest.id + 1);
  EXPECT_GT(second.manifest.keys, first.manifest.keys);
  // Ten snapshots more: the system records' chunk (the head) and the chunk
  // at the end of the snapshot subspace, not the lake's.
  EXPECT_LE(second.chunks_copied, 2u);
  EXPECT_LT(second.bytes_copied * 10, second.manifest.bytes);
  std::cout << "full backup: " << first.bytes_copied << " bytes in " << first.chunks_copied
            << " chunks; after 10 commits: " << second.bytes_copied << " of "
            << second.manifest.bytes << " bytes, " << second.chunks_copied << " of "
            << second.manifest.chunks.size() << " chunks\n";
  // Both restore, each to its own snapshot.
  for (const auto& [name, id, head] : {std::tuple{"first", first.manifest.id, int64_t{5000}},
                                       std::tuple{"second", second.manifest.id, int64_t{5010}}}) {
    tools::RestoreStore(dir_.path("backups"), id, dir_.path(name));
    auto restored = store::OpenKvStore({.location = dir_.path(name), .read_only = true});
    EXPECT_EQ(commit::DecodeHeadSnapshotId(*restored->GetSnapshot()->Get(commit::HeadKey())), head);
  }
}

TEST_F(StoreBackupTest, BadInputIsRefusedAndChangesNothing) {
  CommitSnapshot(store_, 1);
  const auto report = tools::BackupStore(*store_->GetSnapshot(), "lake", dir_.path("backups"));
  const auto backups_before = test::FingerprintOf(dir_.path("backups") + "/backups");

  // A destination that exists, even empty; a restore writes over nothing.
  fs::create_directories(dir_.path("taken"));
  EXPECT_THROW(tools::RestoreStore(dir_.path("backups"), std::nullopt, dir_.path("taken")),
               store::InvalidArgumentError);
  EXPECT_TRUE(fs::is_empty(dir_.path("taken")));
  EXPECT_THROW(tools::RestoreStore(dir_.path("backups"), std::nullopt, dir_.path("lake.moraine")),
               store::InvalidArgumentError);
  // Not a repository, an unknown backup, another format, damage.
  EXPECT_THROW(tools::RestoreStore(dir_.path("taken"), std::nullopt, dir_.path("x")),
               store::NotFoundError);
  EXPECT_THROW(tools::RestoreStore(dir_.path("backups"), 7, dir_.path("x")), store::NotFoundError);
  fs::create_directories(dir_.path("foreign"));
  std::ofstream(dir_.path("foreign/file")) << "not a backup";
  EXPECT_THROW(tools::BackupStore(*store_->GetSnapshot(), "lake", dir_.path("foreign")),
               store::InvalidArgumentError);
  EXPECT_EQ(test::FingerprintOf(dir_.path("foreign")).size(), 1u);

  fs::copy(dir_.path("backups"), dir_.path("future"), fs::copy_options::recursive);
  std::ofstream(dir_.path("future/MORAINE-BACKUP")) << "moraine backup repository 9\n";
  EXPECT_THROW(tools::RestoreStore(dir_.path("future"), std::nullopt, dir_.path("x")),
               store::UnsupportedVersionError);

  fs::copy(dir_.path("backups"), dir_.path("damaged"), fs::copy_options::recursive);
  const std::string chunk = report.manifest.chunks.front().sha256;
  const std::string chunk_path = dir_.path("damaged/chunks/" + chunk.substr(0, 2) + "/" + chunk);
  {
    std::fstream file(chunk_path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(10);
    file.put('\x7f');
  }
  EXPECT_THROW(tools::RestoreStore(dir_.path("damaged"), std::nullopt, dir_.path("x")),
               store::CorruptionError);
  fs::copy(dir_.path("backups"), dir_.path("bad-manifest"), fs::copy_options::recursive);
  std::ofstream(dir_.path("bad-manifest/backups/1"), std::ios::app) << "keys 1\n";
  EXPECT_THROW(tools::RestoreStore(dir_.path("bad-manifest"), std::nullopt, dir_.path("x")),
               store::CorruptionError);

  // Nothing was made: no store, no half-built one beside it.
  EXPECT_FALSE(fs::exists(dir_.path("x")));
  for (const auto& entry : fs::directory_iterator(dir_.path("."))) {
    EXPECT_EQ(entry.path().filename().string().find(".restoring"), std::string::npos)
        << entry.path();
  }
  EXPECT_EQ(test::FingerprintOf(dir_.path("backups") + "/backups"), backups_before);

  // A store DuckLake has not initialized has no catalog to back up.
  auto empty = store::OpenKvStore({.location = dir_.path("empty.moraine")});
  EXPECT_THROW(tools::BackupStore(*empty->GetSnapshot(), "empty", dir_.path("other")),
               store::InvalidArgumentError);
  EXPECT_FALSE(fs::exists(dir_.path("other")));
}

}  // namespace
}  // namespace moraine
