#include "store/etcd_client.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "store/error.h"
#include "store/etcd_grpc_cancel.h"
#include "store/etcd_status.h"

namespace moraine::store {
namespace {

constexpr std::string_view kRange = "/etcdserverpb.KV/Range";
constexpr std::string_view kTxn = "/etcdserverpb.KV/Txn";
constexpr std::string_view kDeleteRange = "/etcdserverpb.KV/DeleteRange";
constexpr std::string_view kWatch = "/etcdserverpb.Watch/Watch";

// A member that stops answering without closing its connection (stopped,
// or cut off by the network) would hold a watch stream silent for ever: after
// this much silence a cheap call checks that it still answers, within
// kProbeTimeout. The figures of the gRPC keepalive pings this replaces.
constexpr auto kWatchIdleProbe = std::chrono::milliseconds(10000);
constexpr auto kProbeTimeout = std::chrono::milliseconds(3000);

}  // namespace

EtcdClient::EtcdClient(const EtcdLocation& location, std::string display_location,
                       EtcdStoreOptions options)
    : display_location_(std::move(display_location)), options_(options) {
  for (const auto& endpoint : location.endpoints) {
    channels_.push_back(std::make_unique<EtcdGrpcChannel>(endpoint));
  }
}

EtcdGrpcChannel& EtcdClient::CurrentChannel(size_t* index) {
  *index = current_.load(std::memory_order_relaxed) % channels_.size();
  return *channels_[*index];
}

void EtcdClient::Advance(size_t from) {
  // Only the first of several threads that saw `from` fail moves on, so a
  // burst of failures skips one member, not all of them.
  size_t expected = from;
  current_.compare_exchange_strong(expected, (from + 1) % channels_.size());
}

void EtcdClient::Backoff(int attempt) {
  const int ms = std::min(400, 25 << std::min(attempt, 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void EtcdClient::ThrowUnreachable(const EtcdRpcStatus& last) const {
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
    auto& channel = CurrentChannel(&index);
    etcdserverpb::RangeResponse response;
    ranges_.fetch_add(1, std::memory_order_relaxed);
    const EtcdRpcStatus status = channel.Call(kRange, linearizable ? *linearizable : request,
                                              &response, options_.rpc_timeout);
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

EtcdRpcStatus EtcdClient::TxnOnce(const etcdserverpb::TxnRequest& request,
                                  etcdserverpb::TxnResponse* response) {
  return TxnOnce(request, response, options_.rpc_timeout);
}

EtcdRpcStatus EtcdClient::TxnOnce(const etcdserverpb::TxnRequest& request,
                                  etcdserverpb::TxnResponse* response,
                                  std::chrono::milliseconds timeout) {
  size_t index;
  auto& channel = CurrentChannel(&index);
  txns_.fetch_add(1, std::memory_order_relaxed);
  EtcdRpcStatus status = channel.Call(kTxn, request, response, timeout);
  if (ClassifyEtcdStatus(status) == EtcdStatusKind::kTransient) Advance(index);
  return status;
}

EtcdRpcStatus EtcdClient::Watch(
    const etcdserverpb::WatchRequest& request, EtcdGrpcCancel& cancel, size_t* member,
    const std::function<bool(const etcdserverpb::WatchResponse&)>& on_response) {
  auto& channel = CurrentChannel(member);
  EtcdGrpcChannel::StreamOptions options;
  // etcd's own client sets this for WithRequireLeader.
  options.metadata = {{"hasleader", "true"}};
  options.idle_probe_after = kWatchIdleProbe;
  // Any answer, even a refusal, shows the member alive; a serializable read
  // of one key's count is answered by the member alone, leader or not.
  etcdserverpb::RangeRequest probe;
  probe.set_key(request.create_request().key());
  probe.set_serializable(true);
  probe.set_count_only(true);
  options.probe = [&channel, &probe] {
    etcdserverpb::RangeResponse response;
    const auto code = channel.Call(kRange, probe, &response, kProbeTimeout).code();
    return code != EtcdRpcCode::kUnavailable && code != EtcdRpcCode::kDeadlineExceeded;
  };
  etcdserverpb::WatchResponse response;
  bool unreadable = false;
  EtcdRpcStatus status =
      channel.ServerStream(kWatch, request, options, cancel, [&](std::string_view message) {
        response.Clear();
        if (!response.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
          unreadable = true;
          return false;
        }
        return on_response(response);
      });
  if (unreadable) {
    return {EtcdRpcCode::kInternal,
            "etcd member " + channel.endpoint() + " sent an unreadable watch response"};
  }
  return status;
}

EtcdRpcStatus EtcdClient::DeleteRangeOnce(const etcdserverpb::DeleteRangeRequest& request,
                                          std::chrono::milliseconds timeout) {
  size_t index;
  auto& channel = CurrentChannel(&index);
  etcdserverpb::DeleteRangeResponse response;
  return channel.Call(kDeleteRange, request, &response, timeout);
}

}  // namespace moraine::store
