// A test with a temporary directory holding one moraine store and the data
// files of the DuckLake lake on it, attached as `lake`.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine::test {

class MoraineLakeTest : public ::testing::Test {
 protected:
  // Every store a test leaves behind satisfies the design's invariants; a test
  // that damages its store on purpose turns this off.
  void TearDown() override {
    if (verify_store_at_teardown_) ExpectStoreVerifies(Store());
  }

  std::string Store() const { return dir_.path("lake.moraine"); }
  std::string Files() const { return dir_.path("files") + "/"; }
  // ATTACH of the lake on the store; `options` continues the option list
  // (", READ_ONLY").
  std::string AttachLake(const std::string& options = "") const {
    return "ATTACH 'ducklake:moraine:" + Store() + "' AS lake (DATA_PATH '" + Files() + "'" +
           options + ")";
  }

  TempDir dir_;
  bool verify_store_at_teardown_ = true;
};

}  // namespace moraine::test
