#pragma once

// An ascending KvIterator over one key range of an etcd revision, fetched in
// pages: each page is one Range RPC at the snapshot's revision, so pages
// agree with each other however long the scan takes (until the cluster
// compacts that revision). Or over one complete page already read (from an
// EtcdReadCache).
//
// Thread-safety: one thread at a time, like every KvIterator.

#include <memory>
#include <string>

#include "store/etcd/etcd_keyspace.h"
#include "store/etcd/rpc.pb.h"
#include "store/kv_store.h"

namespace moraine::store {

class EtcdClient;

class EtcdScanIterator final : public KvIterator {
 public:
  // `range` must not be empty or inverted: etcd would read it as "the key
  // alone" (EtcdSnapshot::Scan gives those the empty scan below).
  EtcdScanIterator(std::shared_ptr<EtcdClient> client, const EtcdKeyspace& keyspace,
                   const KeyRange& range, int64_t revision, int64_t page_size);
  // Over `page` alone (null: an empty scan); `strip`: bytes of the data
  // prefix to drop from each key.
  EtcdScanIterator(std::shared_ptr<const etcdserverpb::RangeResponse> page, size_t strip);

  // The scan's first page if it is the whole scan, else null.
  std::shared_ptr<const etcdserverpb::RangeResponse> OnlyPage() const;

  bool Valid() const override;
  void Next() override;
  std::string_view key() const override;
  std::string_view value() const override;

 private:
  void FetchPage(std::string begin);

  std::shared_ptr<EtcdClient> client_;
  size_t strip_;  // bytes of the data prefix to drop from each key
  std::string end_;
  int64_t revision_;
  int64_t page_size_;
  std::shared_ptr<const etcdserverpb::RangeResponse> page_;
  bool first_page_ = true;
  int index_ = 0;
};

}  // namespace moraine::store
