#pragma once

// How many RPCs an etcd store handle has sent (retries included), for tests
// and benchmarks that count round trips per commit.
//
// Thread-safety: plain data (a copy of the client's atomic counters).

#include <cstdint>

namespace moraine::store {

struct EtcdRpcCounts {
  uint64_t ranges = 0;  // Range RPCs, serializable or not
  // Of `ranges`, those sent linearizable: each waits for the leader's read
  // index, a heartbeat round across the cluster.
  uint64_t linearizable_ranges = 0;
  uint64_t txns = 0;  // Txn RPCs
};

}  // namespace moraine::store
