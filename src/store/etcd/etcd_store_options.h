#pragma once

// Tunables of an EtcdStore handle. The defaults suit a production cluster;
// tests shorten the timeouts (an unreachable cluster) or the page size (paging).
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the instance to itself.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace moraine::store {

struct EtcdStoreOptions {
  // How long one RPC may take before it counts as unanswered (a write's
  // outcome is then unknown and settled through its commit token).
  std::chrono::milliseconds rpc_timeout{2000};
  // How long one store operation (a read, or a commit with its retries and
  // settling) keeps trying before it fails with IoError. Well above a leader
  // election (about a second with etcd's default --election-timeout).
  std::chrono::milliseconds operation_timeout{20000};
  // Keys per Range page of a scan: large, since each page is a round trip.
  int64_t scan_page_size = 2048;
  // Bytes of reads kept by the handle's EtcdReadCache (0: none kept, every
  // read is a round trip).
  size_t read_cache_bytes = size_t{128} << 20;
  // How long a snapshot's first read waits for the lake's change stream to
  // reach the snapshot's newest commit before it reads from the cluster.
  std::chrono::milliseconds read_cache_wait{50};
  // Whether a commit that waits for its turn hands itself to the writer
  // whose turn it is, which lands it with its own in one Txn (group commit,
  // store::CommitOffer), and whether this handle's commits land the intents
  // queued behind them. Without a read cache there is no queue, and none.
  bool group_commit = true;
};

}  // namespace moraine::store
