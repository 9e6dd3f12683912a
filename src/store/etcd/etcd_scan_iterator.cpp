#include "store/etcd/etcd_scan_iterator.h"

#include "store/etcd/etcd_client.h"

namespace moraine::store {

EtcdScanIterator::EtcdScanIterator(std::shared_ptr<EtcdClient> client, const EtcdKeyspace& keyspace,
                                   const KeyRange& range, int64_t revision, int64_t page_size)
    : client_(std::move(client)),
      strip_(keyspace.data_prefix.size()),
      end_(keyspace.DataEnd(range)),
      revision_(revision),
      page_size_(page_size) {
  FetchPage(keyspace.DataBegin(range));
}

EtcdScanIterator::EtcdScanIterator(std::shared_ptr<const etcdserverpb::RangeResponse> page,
                                   size_t strip)
    : strip_(strip), revision_(0), page_size_(0), page_(std::move(page)) {}

std::shared_ptr<const etcdserverpb::RangeResponse> EtcdScanIterator::OnlyPage() const {
  return first_page_ && page_ && !page_->more() ? page_ : nullptr;
}

void EtcdScanIterator::FetchPage(std::string begin) {
  etcdserverpb::RangeRequest request;
  request.set_key(std::move(begin));
  request.set_range_end(end_);
  request.set_revision(revision_);
  request.set_serializable(true);  // see etcd_snapshot.h
  request.set_limit(page_size_);
  first_page_ = page_ == nullptr;
  page_ = std::make_shared<const etcdserverpb::RangeResponse>(client_->Range(request));
  index_ = 0;
}

bool EtcdScanIterator::Valid() const { return page_ && index_ < page_->kvs_size(); }

void EtcdScanIterator::Next() {
  if (!Valid()) return;
  if (++index_ < page_->kvs_size() || !page_->more()) return;
  // The next page starts just after the last key of this one.
  std::string after = page_->kvs(index_ - 1).key();
  after.push_back('\0');
  FetchPage(std::move(after));
}

std::string_view EtcdScanIterator::key() const {
  return std::string_view(page_->kvs(index_).key()).substr(strip_);
}

std::string_view EtcdScanIterator::value() const { return page_->kvs(index_).value(); }

}  // namespace moraine::store
