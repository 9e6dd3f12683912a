// A test with a temporary directory holding one moraine store and the data
// files of the DuckLake lake on it, attached as `lake`. The store is a RocksDB
// directory there, or a prefix in an etcd cluster when the test is compiled
// for etcd (lake_store_backend.h).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/lake_store_backend.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine::test {

class MoraineLakeTest : public ::testing::Test {
 protected:
  // Every store a test leaves behind satisfies the design's invariants; a test
  // that damages its store on purpose turns this off.
  void SetUp() override {
    if (auto why = LakeStoreUnavailable()) GTEST_SKIP() << *why;
    store_ = NewLakeStore(dir_);
  }
  void TearDown() override {
    if (verify_store_at_teardown_ && !store_.empty()) ExpectStoreVerifies(Store());
  }

  // The lake's store location: a directory path, or etcd://...
  std::string Store() const { return store_; }
  std::string Files() const { return dir_.path("files") + "/"; }
  // ATTACH of the lake on the store; `options` continues the option list
  // (", READ_ONLY").
  std::string AttachLake(const std::string& options = "") const {
    return "ATTACH 'ducklake:moraine:" + Store() + "' AS lake (DATA_PATH '" + Files() + "'" +
           options + ")";
  }

  TempDir dir_;
  std::string store_;
  bool verify_store_at_teardown_ = true;
};

}  // namespace moraine::test
