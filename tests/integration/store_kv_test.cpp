// The KvStore contract (support/kv_store_contract.h) against real RocksDB, on
// disk and in memory, and what is particular to RocksDB locations.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace moraine::store
