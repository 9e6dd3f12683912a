#include "store/etcd_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "store/error.h"
#include "store/etcd_status.h"

namespace moraine::store {
namespace {

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& endpoint) {
  grpc::ChannelArguments args;
  // Range pages of large values exceed gRPC's 4 MiB default; etcd's own
  // limit on what it sends is far higher.
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A restarted member should be used again within a second or so, not after
  // gRPC's default reconnect backoff of up to two minutes.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // A member that stops answering without closing its connection (stopped,
  // or cut off by the network) would hold a watch stream silent forever:
  // HTTP/2 pings find it. No more often than etcd's --grpc-keepalive-min-time
  // (5 s by default) allows, or the server closes the connection.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 3000);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  return grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), args);
}

void SetDeadline(grpc::ClientContext& context, std::chrono::milliseconds timeout) {
  context.set_deadline(std::chrono::system_clock::now() + timeout);
}

}  // namespace

EtcdClient::EtcdClient(const EtcdLocation& location, std::string display_location,
                       EtcdStoreOptions options)
    : display_location_(std::move(display_location)), options_(options) {
  for (const auto& endpoint : location.endpoints) {
    auto channel = MakeChannel(endpoint);
    stubs_.push_back(etcdserverpb::KV::NewStub(channel));
    watch_stubs_.push_back(etcdserverpb::Watch::NewStub(channel));
  }
}

etcdserverpb::KV::Stub& EtcdClient::CurrentStub(size_t* index) {
  *index = current_.load(std::memory_order_relaxed) % stubs_.size();
  return *stubs_[*index];
}

void EtcdClient::Advance(size_t from) {
  // Only the first of several threads that saw `from` fail moves on, so a
  // burst of failures skips one member, not all of them.
  size_t expected = from;
  current_.compare_exchange_strong(expected, (from + 1) % stubs_.size());
}

void EtcdClient::Backoff(int attempt) {
  const int ms = std::min(400, 25 << std::min(attempt, 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void EtcdClient::ThrowUnreachable(const grpc::Status& last) const {
  throw IoError("the etcd cluster at " + display_location_ + " did not answer within " +
                std::to_string(options_.operation_timeout.count()) + " ms (last error: " +
                DescribeEtcdStatus(last) + "); check that its members run and have a leader");
}

etcdserverpb::RangeResponse EtcdClient::Range(const etcdserverpb::RangeRequest& request) {
  const auto deadline = OperationDeadline();
  // Set when a serializable read met a member that has not applied its
  // revision yet: from then on this read goes through the leader's read index.
  std::optional<etcdserverpb::RangeRequest> linearizable;
  for (int attempt = 0;; ++attempt) {
    size_t index;
    auto& stub = CurrentStub(&index);
    grpc::ClientContext context;
    SetDeadline(context, options_.rpc_timeout);
    etcdserverpb::RangeResponse response;
    ranges_.fetch_add(1, std::memory_order_relaxed);
    const grpc::Status status =
        stub.Range(&context, linearizable ? *linearizable : request, &response);
    switch (ClassifyEtcdStatus(status)) {
      case EtcdStatusKind::kOk:
        return response;
      case EtcdStatusKind::kFutureRevision:
        if (!request.serializable() || linearizable) {
          throw IoError("the etcd cluster at " + display_location_ + " has no revision " +
                        std::to_string(request.revision()) + " yet: " + DescribeEtcdStatus(status));
        }
        linearizable = request;
        linearizable->set_serializable(false);
        continue;
      case EtcdStatusKind::kTransient:
        Advance(index);
        if (Clock::now() >= deadline) ThrowUnreachable(status);
        Backoff(attempt);
        continue;
      case EtcdStatusKind::kCompacted:
        throw IoError("the etcd cluster at " + display_location_ + " compacted revision " +
                      std::to_string(request.revision()) +
                      " while a snapshot still read it; keep revisions longer than the longest "
                      "read (etcd's --auto-compaction-retention) and retry");
      default:
        throw IoError("the etcd cluster at " + display_location_ +
                      " refused a read: " + DescribeEtcdStatus(status));
    }
  }
}

grpc::Status EtcdClient::TxnOnce(const etcdserverpb::TxnRequest& request,
                                 etcdserverpb::TxnResponse* response) {
  return TxnOnce(request, response, options_.rpc_timeout);
}

grpc::Status EtcdClient::TxnOnce(const etcdserverpb::TxnRequest& request,
                                 etcdserverpb::TxnResponse* response,
                                 std::chrono::milliseconds timeout) {
  size_t index;
  auto& stub = CurrentStub(&index);
  grpc::ClientContext context;
  SetDeadline(context, timeout);
  txns_.fetch_add(1, std::memory_order_relaxed);
  grpc::Status status = stub.Txn(&context, request, response);
  if (ClassifyEtcdStatus(status) == EtcdStatusKind::kTransient) Advance(index);
  return status;
}

std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
EtcdClient::OpenWatch(grpc::ClientContext* context, size_t* member) {
  CurrentStub(member);
  // etcd's own client sets this for WithRequireLeader.
  context->AddMetadata("hasleader", "true");
  return watch_stubs_[*member]->Watch(context);
}

grpc::Status EtcdClient::DeleteRangeOnce(const etcdserverpb::DeleteRangeRequest& request,
                                         std::chrono::milliseconds timeout) {
  size_t index;
  auto& stub = CurrentStub(&index);
  grpc::ClientContext context;
  SetDeadline(context, timeout);
  etcdserverpb::DeleteRangeResponse response;
  return stub.DeleteRange(&context, request, &response);
}

}  // namespace moraine::store
