#pragma once

// A KvSnapshot of an etcd store: one cluster revision, read once when the
// snapshot is taken (a linearizable read, so it includes every commit
// acknowledged before). Gets and scans are Range RPCs at that revision, so
// the view never moves. Safe to read from several threads at once.

#include <memory>

#include "store/etcd_keyspace.h"
#include "store/kv_store.h"

namespace moraine::store {

class EtcdClient;

class EtcdSnapshot final : public KvSnapshot {
 public:
  EtcdSnapshot(std::shared_ptr<EtcdClient> client, EtcdKeyspace keyspace, int64_t revision,
               int64_t page_size);

  std::optional<std::string> Get(std::string_view key) const override;
  std::unique_ptr<KvIterator> Scan(const KeyRange& range) const override;

  int64_t revision() const { return revision_; }

 private:
  std::shared_ptr<EtcdClient> client_;
  EtcdKeyspace keyspace_;
  int64_t revision_;
  int64_t page_size_;
};

}  // namespace moraine::store
