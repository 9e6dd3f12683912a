// `moraine verify` for tests: every store a test suite builds through DuckLake
// must satisfy every invariant of the design when the test ends. Cheap: one
// read-only scan of a small store.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "store/error.h"
#include "store/etcd/etcd_location.h"
#include "tools/store_verifier.h"
#include "tools/tool_store.h"

namespace moraine::test {

// Verifies the store at `path` (a directory or etcd://...; read-only, a
// writer may still hold it) and fails the test with one line per violation.
// A path without a store, or a store DuckLake never initialized, is skipped:
// there is nothing to verify.
inline void ExpectStoreVerifies(const std::string& path) {
  const bool etcd = store::EtcdLocation::Matches(path);
  if (!etcd && !std::filesystem::exists(std::filesystem::path(path) / "CURRENT")) return;
  std::shared_ptr<store::KvStore> kv;
  try {
    kv = tools::OpenStoreReadOnly(path);
  } catch (const store::InvalidArgumentError&) {
    return;  // no head record: DuckLake never initialized the store
  } catch (const store::NotFoundError&) {
    if (!etcd) throw;
    return;  // an empty prefix: nothing was ever committed
  }
  const tools::VerifyReport report = tools::VerifyStore(*kv->GetSnapshot());
  std::string lines;
  for (const tools::Violation& violation : report.violations) {
    lines += "  " + violation.check + " " + violation.key + ": " + violation.message + "\n";
  }
  EXPECT_TRUE(report.clean()) << "moraine verify " << path << " found " << report.violations.size()
                              << " violations:\n"
                              << lines;
}

}  // namespace moraine::test
