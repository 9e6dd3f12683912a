// kill -9 and power cuts during `moraine backup` and `moraine restore` (issue
// #34): a child process dies at a named point (MORAINE_TEST_CRASH_AT,
// store/rocksdb/test_hooks.h) and then
//   - the source store holds exactly what it held (a backup only reads it);
//   - the repository holds its earlier backups, each restorable, and the
//     interrupted backup is absent or whole; a rerun completes;
//   - an interrupted restore leaves no store at its destination; a rerun
//     makes it whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "commit/rows/row_transaction.h"
#include "support/run_process.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"
#include "tools/backup_repository.h"
#include "tools/store_verifier.h"

namespace moraine {
namespace {

namespace fs = std::filesystem;
using test::kNull;

using KeyValues = std::map<std::string, std::string>;

KeyValues Everything(const std::string& location) {
  auto store = store::OpenKvStore({.location = location, .read_only = true});
  return test::AllKeyValues(*store->GetSnapshot());
}

// Runs the host; dies at `crash_at` if given, as a power cut with `power_cut`
// (store/rocksdb/test_hooks.h: what the store's files did not sync is lost).
test::ProcessResult Moraine(const std::string& arguments, const std::string& crash_at = "",
                            bool power_cut = false) {
  std::string env = crash_at.empty() ? "" : "MORAINE_TEST_CRASH_AT=" + crash_at + " ";
  if (power_cut) env += "MORAINE_TEST_POWER_CUT=1 ";
  return test::RunCommand(env + MORAINE_EXECUTABLE " " + arguments + " 2>&1");
}

class BackupCrashTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    source_dir_ = new test::TempDir();
    const auto store = test::NewStoreLikeDuckLake(source_dir_->path("lake.moraine"));
    for (int64_t id = 1; id <= 3000; ++id) {
      auto txn = commit::BeginRowTransaction(store);
      txn->Insert("ducklake_snapshot", {id, kNull, int64_t{0}, int64_t{1}, int64_t{0}});
      txn->Insert("ducklake_snapshot_changes", {id, std::string(300, 'x'), kNull, kNull, kNull});
      txn->Commit();
    }
  }
  static void TearDownTestSuite() { delete source_dir_; }

  static std::string Source() { return source_dir_->path("lake.moraine"); }

  static test::TempDir* source_dir_;
  test::TempDir dir_;
};

test::TempDir* BackupCrashTest::source_dir_ = nullptr;

TEST_F(BackupCrashTest, AKilledBackupLeavesTheSourceAndEarlierBackupsWhole) {
  const KeyValues source = Everything(Source());
  const std::string repository = dir_.path("backups");
  ASSERT_EQ(Moraine("backup " + Source() + " " + repository).exit_code, 0);
  // Into a repository holding backup 1 of the same state, no chunk is new:
  // the chunk points are reached only in a fresh one.
  struct Case {
    std::string point;
    bool fresh;
  };
  int n = 0;
  for (const Case& kill :
       {Case{"backup.chunk_written@1", true}, Case{"backup.chunk_written@6", true},
        Case{"backup.before_manifest@1", true}, Case{"backup.before_manifest@1", false}}) {
    SCOPED_TRACE(kill.point + (kill.fresh ? " into a fresh repository" : " into backup 1's"));
    const std::string target = dir_.path("case-" + std::to_string(++n));
    if (!kill.fresh) fs::copy(repository, target, fs::copy_options::recursive);
    const auto killed = Moraine("backup " + Source() + " " + target, kill.point);
    EXPECT_NE(killed.exit_code, 0) << killed.output;
    EXPECT_EQ(killed.output.find("backup "), std::string::npos) << killed.output;
    EXPECT_EQ(Everything(Source()), source);
    EXPECT_EQ(tools::BackupRepository::Open(target).BackupIds(),
              kill.fresh ? std::vector<uint64_t>{} : std::vector<uint64_t>{1});
    if (!kill.fresh) {
      ASSERT_EQ(Moraine("restore " + target + " " + target + "-first --id 1").exit_code, 0);
      EXPECT_EQ(Everything(target + "-first"), source);
    }
    // The rerun completes, reusing the chunks the killed one wrote.
    const auto rerun = Moraine("backup " + Source() + " " + target);
    ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
    ASSERT_EQ(Moraine("restore " + target + " " + target + "-restored").exit_code, 0);
    EXPECT_EQ(Everything(target + "-restored"), source);
  }
}

TEST_F(BackupCrashTest, AKilledRestoreLeavesNoStoreAndARerunMakesItWhole) {
  const KeyValues source = Everything(Source());
  const std::string repository = dir_.path("backups");
  ASSERT_EQ(Moraine("backup " + Source() + " " + repository).exit_code, 0);
  int n = 0;
  for (const std::string point :
       {"restore.batch_written@1", "restore.before_rename@1", "log.sync@1", "manifest.sync@2"}) {
    SCOPED_TRACE(point);
    const std::string destination = dir_.path("restored-" + std::to_string(++n));
    const auto killed = Moraine("restore " + repository + " " + destination, point);
    EXPECT_NE(killed.exit_code, 0) << killed.output;
    EXPECT_FALSE(fs::exists(destination));
    const auto rerun = Moraine("restore " + repository + " " + destination);
    ASSERT_EQ(rerun.exit_code, 0) << rerun.output;
    EXPECT_EQ(Everything(destination), source);
    // Nothing of the killed restore is left beside it.
    for (const auto& entry : fs::directory_iterator(dir_.path("."))) {
      EXPECT_EQ(entry.path().filename().string().find(".restoring-"), std::string::npos)
          << entry.path();
    }
  }
}

// A power cut during a restore: before the rename nothing is at the
// destination (a rerun makes it whole); once the restore renamed it into place
// it is whole, whatever the store's files had not synced.
TEST_F(BackupCrashTest, APowerCutDuringARestoreLeavesNoStoreOrAWholeOne) {
  const KeyValues source = Everything(Source());
  const std::string repository = dir_.path("backups");
  ASSERT_EQ(Moraine("backup " + Source() + " " + repository).exit_code, 0);
  int n = 0;
  for (const std::string point :
       {"restore.batch_written@1", "restore.before_rename@1", "log.sync@1", "restore.renamed@1"}) {
    SCOPED_TRACE(point);
    const std::string destination = dir_.path("cut-" + std::to_string(++n));
    const auto cut = Moraine("restore " + repository + " " + destination, point, true);
    EXPECT_NE(cut.exit_code, 0) << cut.output;
    if (point == "restore.renamed@1") {
      ASSERT_TRUE(fs::exists(destination));
      EXPECT_EQ(Everything(destination), source);
      continue;
    }
    EXPECT_FALSE(fs::exists(destination));
    ASSERT_EQ(Moraine("restore " + repository + " " + destination).exit_code, 0);
    EXPECT_EQ(Everything(destination), source);
  }
}

}  // namespace
}  // namespace moraine
