// The high-water file alone: what a writer advances and a reader reads back,
// and what a torn or damaged slot leaves readable.
#include "store/rocksdb/high_water_mark.h"

#include <gtest/gtest.h>
#include <rocksdb/env.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "store/error.h"
#include "util/temp_dir.h"

namespace moraine::store {
namespace {

namespace fs = std::filesystem;

class HighWaterMarkTest : public ::testing::Test {
 protected:
  HighWaterMarkTest() : dir_(util::CreateTempDir("moraine-high-water-")) {}
  ~HighWaterMarkTest() override { fs::remove_all(dir_); }

  std::optional<uint64_t> Read() { return HighWaterMark::Read(env_, dir_.string()); }
  fs::path File() const { return dir_ / std::string(kHighWaterFileName); }
  void FlipByteAt(size_t offset) {
    std::fstream file(File(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(offset));
    const char byte = static_cast<char>(file.get());
    file.seekp(static_cast<std::streamoff>(offset));
    file.put(static_cast<char>(byte ^ 0x40));
  }

  rocksdb::Env& env_ = *rocksdb::Env::Default();
  fs::path dir_;
};

TEST_F(HighWaterMarkTest, AStoreWithoutTheFileHasNoMark) { EXPECT_EQ(Read(), std::nullopt); }

TEST_F(HighWaterMarkTest, AdvancesAreReadBackAndNeverGoBack) {
  auto mark = HighWaterMark::OpenOrCreate(env_, dir_.string(), 5);
  EXPECT_EQ(Read(), 5u);
  mark->Advance(9);
  EXPECT_EQ(Read(), 9u);
  mark->Advance(7);  // an older group's sync, finishing late, lowers nothing
  EXPECT_EQ(Read(), 9u);
  mark->Advance(12);
  mark.reset();
  // Reopened, the file keeps its mark whatever sequence the opener has.
  mark = HighWaterMark::OpenOrCreate(env_, dir_.string(), 3);
  EXPECT_EQ(mark->sequence(), 12u);
  EXPECT_EQ(Read(), 12u);
  EXPECT_FALSE(fs::exists(File().string() + ".tmp"));
}

TEST_F(HighWaterMarkTest, ATornNewestSlotLeavesTheOlderOneReadable) {
  // Generations alternate slots, starting with the second: 1 and 3 there,
  // 2 in the first.
  auto mark = HighWaterMark::OpenOrCreate(env_, dir_.string(), 10);
  FlipByteAt(20);  // the empty first slot: nothing to lose
  EXPECT_EQ(Read(), 10u);
  mark->Advance(20);  // generation 2 writes over the first slot whole
  mark->Advance(30);  // generation 3 over generation 1
  EXPECT_EQ(Read(), 30u);
  FlipByteAt(4096 + 20);  // inside generation 3's sequence: its checksum fails
  EXPECT_EQ(Read(), 20u);
  FlipByteAt(3);  // generation 2's magic
  EXPECT_THROW(Read(), CorruptionError);
}

TEST_F(HighWaterMarkTest, ResetStartsTheMarkAgainLower) {
  auto mark = HighWaterMark::OpenOrCreate(env_, dir_.string(), 1);
  mark->Advance(100);
  mark.reset();
  HighWaterMark::Reset(env_, dir_.string(), 40);
  EXPECT_EQ(Read(), 40u);
}

TEST_F(HighWaterMarkTest, AFileOfNeitherSlotIsRefused) {
  std::ofstream(File(), std::ios::binary) << "not a mark";
  EXPECT_THROW(Read(), CorruptionError);
}

}  // namespace
}  // namespace moraine::store
