// The KvStore contract (support/kv_store_contract.h) against real RocksDB, on
// disk and in memory, and what is particular to RocksDB locations.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "store/kv_store.h"
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

// RocksDB 7.8 leaves the empty log of every open that writes nothing; a
// lake only read by its sessions gathered one file per session, each listed
// and replayed at every later open.
TEST(StoreKvDisk, SessionsThatWriteNothingDoNotGatherLogFiles) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  {
    auto store = OpenKvStore(options);
    WriteBatch batch;
    batch.Put("k", "v");
    store->Write(batch);
  }
  for (int session = 0; session < 30; session++) {
    auto store = OpenKvStore(options);
    EXPECT_EQ(GetLatest(*store, "k"), std::optional<std::string>("v"));
  }
  EXPECT_LE(LogFiles(options.location), 6u);
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

}  // namespace
}  // namespace moraine::store
