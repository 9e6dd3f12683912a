#pragma once

// A KvSnapshot of an etcd store: one cluster revision, read once when the
// snapshot is taken (a linearizable read, so it includes every commit
// acknowledged before). Gets and scans are Range RPCs at that revision, so
// the view never moves.
//
// Those reads are serializable: served by the member itself, without a
// read-index round to the leader and a quorum. That is exact, not stale: the
// state at a fixed revision is the same on every member that has applied it
// (one raft log), and a member that has not yet refuses with "future
// revision", when the read is repeated linearizably (EtcdClient::Range). A
// DuckLake commit makes about twenty reads; each linearizable one would cost
// a heartbeat round across the cluster.
//
// Most of those reads are answered by the handle's EtcdReadCache instead,
// when it can prove the answer (see etcd_read_cache.h); what the cluster
// answers is offered to it.
//
// Thread-safety: reads may run on several threads at once: the client and the
// cache are thread-safe, and waited_ is atomic.

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

#include "store/etcd/etcd_keyspace.h"
#include "store/kv_store.h"

namespace moraine::store {

class EtcdClient;
class EtcdReadCache;

class EtcdSnapshot final : public KvSnapshot {
 public:
  // `last_change`: the revision of the lake's newest commit at `revision`
  // (nullopt if unknown: then `cache` answers nothing). `cache` may be null.
  // A first lookup waits up to `cache_wait` for the cache to catch up.
  EtcdSnapshot(std::shared_ptr<EtcdClient> client, EtcdKeyspace keyspace, int64_t revision,
               int64_t page_size, std::shared_ptr<EtcdReadCache> cache,
               std::optional<int64_t> last_change, std::chrono::milliseconds cache_wait);

  std::optional<std::string> Get(std::string_view key) const override;
  std::unique_ptr<KvIterator> Scan(const KeyRange& range) const override;
  // One Range RPC at the snapshot's revision, sorted descending, limit 1,
  // keys only (the read cache does not answer it).
  std::optional<std::string> LastKeyIn(const KeyRange& range) const override;

  int64_t revision() const { return revision_; }

 private:
  std::shared_ptr<EtcdClient> client_;
  EtcdKeyspace keyspace_;
  // How long this lookup may wait for the cache: only the first one does.
  std::chrono::milliseconds CacheWait() const;

  int64_t revision_;
  int64_t page_size_;
  std::shared_ptr<EtcdReadCache> cache_;
  std::optional<int64_t> last_change_;
  std::chrono::milliseconds cache_wait_;
  mutable std::atomic<bool> waited_{false};
};

}  // namespace moraine::store
