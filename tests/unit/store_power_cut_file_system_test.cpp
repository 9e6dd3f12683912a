// The power-cut file system alone: what a cut takes back and what it keeps.
// Each case runs its writes in a forked child, which the cut kills; the
// parent then reads what the cut left.
#include "store/rocksdb/power_cut_file_system.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "util/temp_dir.h"

namespace moraine::store {
namespace {

namespace fs = std::filesystem;

class PowerCutFileSystemTest : public ::testing::Test {
 protected:
  PowerCutFileSystemTest() : dir_(util::CreateTempDir("moraine-power-cut-")) {}
  ~PowerCutFileSystemTest() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void Write(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }

  // Runs `writes` on a power-cut file system in a child, then cuts the power.
  void WriteThenCut(const std::function<void(PowerCutFileSystem&)>& writes) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto fs = std::make_shared<PowerCutFileSystem>(rocksdb::FileSystem::Default());
      writes(*fs);
      fs->CutPower();
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  }

  // A file written through `fs`: `synced`, then `unsynced` after the sync.
  void AppendFile(PowerCutFileSystem& fs, const std::string& name, const std::string& synced,
                  const std::string& unsynced) {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    Check(fs.NewWritableFile(Path(name), {}, &file, nullptr));
    Check(file->Append(synced, {}, nullptr));
    Check(file->Sync({}, nullptr));
    Check(file->Append(unsynced, {}, nullptr));
    Check(file->Flush({}, nullptr));  // into the page cache, not onto the disk
  }
  void SyncDirectory(PowerCutFileSystem& fs) {
    std::unique_ptr<rocksdb::FSDirectory> directory;
    Check(fs.NewDirectory(dir_.string(), {}, &directory, nullptr));
    Check(directory->Fsync({}, nullptr));
  }
  // In the child a failure cannot reach gtest: exit with a code the parent's
  // SIGKILL check refuses.
  static void Check(const rocksdb::IOStatus& status) {
    if (!status.ok()) _exit(3);
  }

  fs::path dir_;
};

TEST_F(PowerCutFileSystemTest, AFileKeepsWhatWasSyncedAndLosesTheRest) {
  WriteThenCut([&](PowerCutFileSystem& fs) {
    AppendFile(fs, "000001.log", "synced", "lost");
    SyncDirectory(fs);
  });
  EXPECT_EQ(Read(Path("000001.log")), "synced");
}

TEST_F(PowerCutFileSystemTest, ANewFileWhoseDirectoryWasNotSyncedIsGone) {
  WriteThenCut([&](PowerCutFileSystem& fs) { AppendFile(fs, "000002.sst", "table", ""); });
  EXPECT_FALSE(fs::exists(Path("000002.sst")));
}

TEST_F(PowerCutFileSystemTest, ARenameNotYetMadeDurableIsUndone) {
  Write(Path("CURRENT"), "MANIFEST-000001\n");
  WriteThenCut([&](PowerCutFileSystem& fs) {
    AppendFile(fs, "000003.dbtmp", "MANIFEST-000004\n", "");
    SyncDirectory(fs);
    Check(fs.RenameFile(Path("000003.dbtmp"), Path("CURRENT"), {}, nullptr));
  });
  EXPECT_EQ(Read(Path("CURRENT")), "MANIFEST-000001\n");
}

TEST_F(PowerCutFileSystemTest, ARenameFollowedByADirectorySyncStays) {
  Write(Path("CURRENT"), "MANIFEST-000001\n");
  WriteThenCut([&](PowerCutFileSystem& fs) {
    AppendFile(fs, "000003.dbtmp", "MANIFEST-000004\n", "");
    Check(fs.RenameFile(Path("000003.dbtmp"), Path("CURRENT"), {}, nullptr));
    SyncDirectory(fs);
  });
  EXPECT_EQ(Read(Path("CURRENT")), "MANIFEST-000004\n");
  EXPECT_FALSE(fs::exists(Path("000003.dbtmp")));
}

TEST_F(PowerCutFileSystemTest, AnInPlaceWriteKeepsOnlyWhatASyncCovered) {
  Write(Path("MORAINE-HIGH-WATER"), "aaaa");
  WriteThenCut([&](PowerCutFileSystem& fs) {
    std::unique_ptr<rocksdb::FSRandomRWFile> file;
    Check(fs.NewRandomRWFile(Path("MORAINE-HIGH-WATER"), {}, &file, nullptr));
    Check(file->Write(0, "bb", {}, nullptr));
    Check(file->Sync({}, nullptr));
    Check(file->Write(2, "cc", {}, nullptr));
  });
  EXPECT_EQ(Read(Path("MORAINE-HIGH-WATER")), "bbaa");
}

}  // namespace
}  // namespace moraine::store
