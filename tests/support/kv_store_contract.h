// The KvStore contract (store/kv_store.h) every backend keeps, as one suite of
// value-parameterized gtest cases, KvStoreContract/*. A test binary compiles
// kv_store_contract.cpp and instantiates the suite with its backends:
//
//   INSTANTIATE_TEST_SUITE_P(RocksDB, KvStoreContract,
//                            ::testing::Values(&kDisk, &kMemory), KvBackendName);
//
// What differs between backends by design is a property of the backend, not
// a copy of a test: whether a second read-write handle is refused.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "store/key_range.h"
#include "store/kv_store.h"

namespace moraine::test {

struct KvBackend {
  std::string name;  // a gtest parameter name: letters and digits
  // A fresh location that holds no store yet; a new one on every call.
  std::function<std::string()> new_location;
  // Why the backend cannot run here (the cases skip), or nothing.
  std::function<std::optional<std::string>()> unavailable = [] { return std::nullopt; };
  // True: a second read-write handle on one location is refused with
  // StoreLockedError while the first is open (RocksDB). False: any number of
  // read-write handles share the location (etcd: the head compare, not a
  // lock, keeps writers apart).
  bool single_writer = true;
};

// Every key and value of `range` in `snapshot`; fails the test if the scan is
// not strictly ascending.
inline std::map<std::string, std::string> ScanAll(const store::KvSnapshot& snapshot,
                                                  const store::KeyRange& range) {
  std::map<std::string, std::string> out;
  std::string previous;
  for (auto it = snapshot.Scan(range); it->Valid(); it->Next()) {
    EXPECT_TRUE(out.empty() || std::string(it->key()) > previous) << "scan is not ascending";
    previous = std::string(it->key());
    out.emplace(it->key(), it->value());
  }
  return out;
}

inline std::string KvBackendName(const ::testing::TestParamInfo<const KvBackend*>& info) {
  return info.param->name;
}

class KvStoreContract : public ::testing::TestWithParam<const KvBackend*> {
 protected:
  void SetUp() override {
    if (auto why = GetParam()->unavailable()) GTEST_SKIP() << *why;
    location_ = GetParam()->new_location();
  }
  std::unique_ptr<store::KvStore> Open(bool read_only = false, bool create_if_missing = true) {
    return store::OpenKvStore(
        {.location = location_, .read_only = read_only, .create_if_missing = create_if_missing});
  }

  std::string location_;
};

}  // namespace moraine::test
