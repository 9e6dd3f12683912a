// The store a MoraineLakeTest's lake lives on, chosen when the test is
// compiled: a RocksDB directory in the test's temp dir by default; with
// MORAINE_TEST_LAKE_ON_ETCD defined (the distributed tier's builds of e2e
// suites), a fresh prefix per test in one 3-member etcd cluster per test
// binary, started on first use from the main thread and stopped at exit. The
// cluster is a secured one (TLS, --client-cert-auth, etcd's auth on:
// etcd_cluster.h), and the lakes are attached as its lake_writer, known by
// its client certificate.
#pragma once

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "support/temp_dir.h"

#ifdef MORAINE_TEST_LAKE_ON_ETCD
#include "support/etcd_cluster.h"
#endif

namespace moraine::test {

#ifdef MORAINE_TEST_LAKE_ON_ETCD
inline constexpr bool kLakeOnEtcd = true;

inline std::optional<std::string> LakeStoreUnavailable() { return EtcdUnavailableReason(); }

// Limits raised past etcd's defaults, as the README asks of a cluster
// serving moraine.
inline std::string NewLakeStore(const TempDir&) {
  static const auto cluster = [] {
    auto started = std::make_unique<EtcdCluster>(
        EtcdCluster::Options{.flags = {"--max-txn-ops=10000", "--max-request-bytes=33554432"},
                             .secured_prefix = "e2e-"});
    started->ActAs(EtcdCluster::kWriter, /*by_password=*/false);
    return started;
  }();
  static int lakes = 0;
  return cluster->Location("e2e-" + std::to_string(::getpid()) + "-" + std::to_string(++lakes));
}
#else
inline constexpr bool kLakeOnEtcd = false;

inline std::optional<std::string> LakeStoreUnavailable() { return std::nullopt; }

inline std::string NewLakeStore(const TempDir& dir) { return dir.path("lake.moraine"); }
#endif

}  // namespace moraine::test
