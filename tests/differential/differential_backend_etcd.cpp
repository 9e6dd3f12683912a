#include <unistd.h>

#include <memory>

#include "differential/differential_backend.h"
#include "support/etcd_cluster.h"

namespace moraine::differential {
namespace {

// One cluster for the whole binary: starting one takes seconds, a prefix
// costs nothing. Limits raised past etcd's defaults, as the README asks of a
// cluster serving moraine: some scripts commit wide tables in one go. A
// secured cluster (TLS, client certificates, etcd's auth), written by its
// lake_writer with a password.
test::EtcdCluster& Cluster() {
  static const auto cluster = [] {
    auto started = std::make_unique<test::EtcdCluster>(
        test::EtcdCluster::Options{.flags = {"--max-txn-ops=10000", "--max-request-bytes=33554432"},
                                   .secured_prefix = "diff-"});
    started->ActAs(test::EtcdCluster::kWriter, /*by_password=*/true);
    return started;
  }();
  return *cluster;
}

}  // namespace

std::optional<std::string> BackendUnavailable() { return test::EtcdUnavailableReason(); }

// Past snapshots are compared once, after the last statement (the head and
// every metadata table still after every statement): each read is a round
// trip to the cluster, and the RocksDB build sweeps every snapshot anyway.
Options BackendOptions() {
  static int runs = 0;
  Options options = OptionsFromEnvironment();
  options.sweep_at_end_only = true;
  options.moraine_store =
      Cluster().Location("diff-" + std::to_string(::getpid()) + "-" + std::to_string(++runs));
  return options;
}

// The manager axis does not depend on the store; it is covered on RocksDB.
// Here the store axis runs with the manager users get, keeping the run short.
bool BackendRunsBothManagers() { return false; }

}  // namespace moraine::differential
