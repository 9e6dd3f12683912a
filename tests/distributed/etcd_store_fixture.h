// A gtest fixture for tests of EtcdStore: one real 3-member etcd cluster per
// test executable (started by the first test, stopped after the last), and a
// fresh lake prefix per test, so tests never see each other's keys.
//
// Built with MORAINE_TEST_ETCD_SECURED, the cluster is a secured one
// (etcd_cluster.h) and the tests' handles act as its lake_writer by password,
// so a token renewed after a member restart is part of what they test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>

#include "store/etcd/etcd_store.h"
#include "store/kv_store.h"
#include "support/etcd_cluster.h"

namespace moraine::test {

class EtcdStoreFixture : public ::testing::Test {
 protected:
#ifdef MORAINE_TEST_ETCD_SECURED
  static constexpr const char* kLakePrefix = "t-";
  static void SetUpTestSuite() {
    if (!EtcdUnavailableReason() && !cluster_) {
      cluster_ = new EtcdCluster(EtcdCluster::Options{.secured_prefix = kLakePrefix});
      cluster_->ActAs(EtcdCluster::kWriter, /*by_password=*/true);
    }
  }
#else
  static constexpr const char* kLakePrefix = "";
  static void SetUpTestSuite() {
    if (!EtcdUnavailableReason() && !cluster_) cluster_ = new EtcdCluster();
  }
#endif
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (auto reason = EtcdUnavailableReason()) GTEST_SKIP() << *reason;
    ASSERT_NE(cluster_, nullptr);
    // Healthy again after a test that killed members.
    ASSERT_TRUE(cluster_->WaitHealthy(std::chrono::seconds(20)));
    static std::atomic<int> counter{0};
    prefix_ = kLakePrefix +
              std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
              std::to_string(::getpid()) + "-" + std::to_string(++counter);
  }

  EtcdCluster& cluster() { return *cluster_; }
  std::string Location() const { return cluster_->Location(prefix_); }

  std::unique_ptr<store::KvStore> Open(bool read_only = false, bool create_if_missing = true) {
    store::KvOptions options;
    options.location = Location();
    options.read_only = read_only;
    options.create_if_missing = create_if_missing;
    return store::OpenKvStore(options);
  }
  std::unique_ptr<store::EtcdStore> OpenEtcd(const store::EtcdStoreOptions& etcd_options) {
    store::KvOptions options;
    options.location = Location();
    return store::EtcdStore::Open(options, etcd_options);
  }

  static inline EtcdCluster* cluster_ = nullptr;
  std::string prefix_;
};

}  // namespace moraine::test
