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
    stubs_.push_back(etcdserverpb::KV::NewStub(MakeChannel(endpoint)));
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
  grpc::Status status = stub.Txn(&context, request, response);
  if (ClassifyEtcdStatus(status) == EtcdStatusKind::kTransient) Advance(index);
  return status;
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
