#include "store/etcd_snapshot.h"

#include "store/etcd_client.h"
#include "store/etcd_scan_iterator.h"

namespace moraine::store {

EtcdSnapshot::EtcdSnapshot(std::shared_ptr<EtcdClient> client, EtcdKeyspace keyspace,
                           int64_t revision, int64_t page_size)
    : client_(std::move(client)),
      keyspace_(std::move(keyspace)),
      revision_(revision),
      page_size_(page_size) {}

std::optional<std::string> EtcdSnapshot::Get(std::string_view key) const {
  etcdserverpb::RangeRequest request;
  request.set_key(keyspace_.Data(key));
  request.set_revision(revision_);
  request.set_serializable(true);  // see etcd_snapshot.h
  auto response = client_->Range(request);
  if (response.kvs_size() == 0) return std::nullopt;
  return std::move(*response.mutable_kvs(0)->mutable_value());
}

std::unique_ptr<KvIterator> EtcdSnapshot::Scan(const KeyRange& range) const {
  return std::make_unique<EtcdScanIterator>(client_, keyspace_, range, revision_, page_size_);
}

}  // namespace moraine::store
