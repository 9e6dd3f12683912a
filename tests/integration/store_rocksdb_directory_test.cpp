// The classification that decides whether a location may become a store.
#include "store/rocksdb/store_directory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/error.h"
#include "store/rocksdb/rocksdb_store.h"
#include "support/temp_dir.h"

namespace moraine::store {
namespace {

namespace fs = std::filesystem;

TEST(StoreDirectory, TellsEveryKindOfLocationApart) {
  test::TempDir dir;
  EXPECT_EQ(InspectStoreDirectory(dir.path("absent")).state, DirectoryState::kAbsent);

  fs::create_directories(dir.path("empty"));
  EXPECT_EQ(InspectStoreDirectory(dir.path("empty")).state, DirectoryState::kEmpty);

  std::ofstream(dir.path("file")) << "x";
  EXPECT_EQ(InspectStoreDirectory(dir.path("file")).state, DirectoryState::kNotADirectory);

  fs::create_directories(dir.path("foreign"));
  std::ofstream(dir.path("foreign/b.txt")) << "x";
  std::ofstream(dir.path("foreign/a.txt")) << "x";
  const auto foreign = InspectStoreDirectory(dir.path("foreign"));
  EXPECT_EQ(foreign.state, DirectoryState::kForeign);
  EXPECT_EQ(foreign.example_file, "a.txt");
  EXPECT_NE(RefusalMessage(foreign, "f").find("holds a.txt"), std::string::npos);

  RocksDbStore::Open({.location = dir.path("store")});
  EXPECT_EQ(InspectStoreDirectory(dir.path("store")).state, DirectoryState::kStore);
  EXPECT_TRUE(RefusalMessage(InspectStoreDirectory(dir.path("store")), "s").empty());

  fs::remove(dir.path("store/CURRENT"));
  const auto damaged = InspectStoreDirectory(dir.path("store"));
  EXPECT_EQ(damaged.state, DirectoryState::kMissingCurrent);
  EXPECT_NE(RefusalMessage(damaged, "s").find("CURRENT file is missing"), std::string::npos);
  EXPECT_NE(RefusalMessage(damaged, "s").find("moraine repair s"), std::string::npos);
}

TEST(StoreDirectory, OnlyTheEngineLeftoversOfARefusedOpenAreNotStoreContents) {
  test::TempDir dir;
  fs::create_directories(dir.path("d"));
  std::ofstream(dir.path("d/LOCK"));
  std::ofstream(dir.path("d/LOG"));
  // Not a damaged store (no manifest, table or log file), and not empty.
  EXPECT_EQ(InspectStoreDirectory(dir.path("d")).state, DirectoryState::kForeign);
  std::ofstream(dir.path("d/000004.log"));
  EXPECT_EQ(InspectStoreDirectory(dir.path("d")).state, DirectoryState::kMissingCurrent);
}

TEST(StoreDirectory, OpenCreatesOnlyWhereInspectionAllowsIt) {
  test::TempDir dir;
  fs::create_directories(dir.path("foreign"));
  std::ofstream(dir.path("foreign/data.csv")) << "1,2";
  EXPECT_THROW(RocksDbStore::Open({.location = dir.path("foreign")}), InvalidArgumentError);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path("foreign")), {}), 1);

  EXPECT_THROW(RocksDbStore::Open({.location = dir.path("absent"), .create_if_missing = false}),
               NotFoundError);
  EXPECT_FALSE(fs::exists(dir.path("absent")));
  EXPECT_THROW(RocksDbStore::Repair(dir.path("absent")), NotFoundError);
}

}  // namespace
}  // namespace moraine::store
