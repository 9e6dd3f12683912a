#include "store/etcd/etcd_snapshot.h"

#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_read_cache.h"
#include "store/etcd/etcd_scan_iterator.h"

namespace moraine::store {

EtcdSnapshot::EtcdSnapshot(std::shared_ptr<EtcdClient> client, EtcdKeyspace keyspace,
                           int64_t revision, int64_t page_size,
                           std::shared_ptr<EtcdReadCache> cache, std::optional<int64_t> last_change,
                           std::chrono::milliseconds cache_wait)
    : client_(std::move(client)),
      keyspace_(std::move(keyspace)),
      revision_(revision),
      page_size_(page_size),
      cache_(std::move(cache)),
      last_change_(last_change),
      cache_wait_(cache_wait) {}

std::chrono::milliseconds EtcdSnapshot::CacheWait() const {
  return waited_.exchange(true, std::memory_order_relaxed) ? std::chrono::milliseconds(0)
                                                           : cache_wait_;
}

std::optional<std::string> EtcdSnapshot::Get(std::string_view key) const {
  std::string etcd_key = keyspace_.Data(key);
  if (cache_) {
    auto lookup = cache_->Get(etcd_key, revision_, last_change_, CacheWait());
    if (lookup.hit) return std::move(lookup.value);
  }
  etcdserverpb::RangeRequest request;
  request.set_key(etcd_key);
  request.set_revision(revision_);
  request.set_serializable(true);  // see etcd_snapshot.h
  auto response = client_->Range(request);
  const mvccpb::KeyValue* found = response.kvs_size() > 0 ? &response.kvs(0) : nullptr;
  if (cache_) cache_->RememberGet(etcd_key, revision_, found);
  if (!found) return std::nullopt;
  return std::move(*response.mutable_kvs(0)->mutable_value());
}

std::optional<std::string> EtcdSnapshot::LastKeyIn(const KeyRange& range) const {
  if (!range.end.empty() && range.end <= range.begin) return std::nullopt;
  etcdserverpb::RangeRequest request;
  request.set_key(keyspace_.DataBegin(range));
  request.set_range_end(keyspace_.DataEnd(range));
  request.set_revision(revision_);
  request.set_serializable(true);  // see etcd_snapshot.h
  request.set_limit(1);
  request.set_sort_order(etcdserverpb::RangeRequest::DESCEND);
  request.set_sort_target(etcdserverpb::RangeRequest::KEY);
  request.set_keys_only(true);
  auto response = client_->Range(request);
  if (response.kvs_size() == 0) return std::nullopt;
  return response.kvs(0).key().substr(keyspace_.data_prefix.size());
}

std::unique_ptr<KvIterator> EtcdSnapshot::Scan(const KeyRange& range) const {
  // etcd reads an empty or inverted range as "the key alone"; KvStore wants none.
  if (!range.end.empty() && range.end <= range.begin) {
    return std::make_unique<EtcdScanIterator>(nullptr, keyspace_.data_prefix.size());
  }
  const std::string begin = keyspace_.DataBegin(range);
  const std::string end = keyspace_.DataEnd(range);
  if (cache_) {
    if (auto page = cache_->GetRange(begin, end, revision_, last_change_, CacheWait())) {
      return std::make_unique<EtcdScanIterator>(std::move(page), keyspace_.data_prefix.size());
    }
  }
  auto iterator =
      std::make_unique<EtcdScanIterator>(client_, keyspace_, range, revision_, page_size_);
  if (cache_) {
    if (auto page = iterator->OnlyPage())
      cache_->RememberRange(begin, end, revision_, std::move(page));
  }
  return iterator;
}

}  // namespace moraine::store
