#pragma once

// The gRPC side of EtcdStore: one channel per cluster member (gRPC over
// HTTP/2, store/etcd_grpc_channel.h), calls with a per-RPC deadline, and
// failover to the next member when one does not answer. It knows etcd's KV
// and Watch services and nothing of moraine's keys or commits.
//
// Thread-safe: channels may be shared by threads, and the member in use is
// an atomic index.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/etcd/rpc.pb.h"
#include "store/etcd_grpc_channel.h"
#include "store/etcd_location.h"
#include "store/etcd_rpc_counts.h"
#include "store/etcd_rpc_status.h"
#include "store/etcd_store_options.h"

namespace moraine::store {

class EtcdGrpcCancel;

class EtcdClient {
 public:
  using Clock = std::chrono::steady_clock;

  EtcdClient(const EtcdLocation& location, std::string display_location, EtcdStoreOptions options);

  // A read, retried on transient failures across members until the operation
  // deadline. A serializable read at a revision the member has not applied
  // yet is repeated linearizably. Throws IoError (unreachable cluster,
  // compacted revision, a revision the cluster does not have, ...).
  etcdserverpb::RangeResponse Range(const etcdserverpb::RangeRequest& request);

  // One Txn RPC on the current member; a transient failure moves later calls
  // to the next member. The caller settles what a failure means.
  EtcdRpcStatus TxnOnce(const etcdserverpb::TxnRequest& request,
                        etcdserverpb::TxnResponse* response);
  // The same with its own RPC deadline.
  EtcdRpcStatus TxnOnce(const etcdserverpb::TxnRequest& request,
                        etcdserverpb::TxnResponse* response, std::chrono::milliseconds timeout);

  // A watch stream on the current member, marked to require a leader (a
  // member cut off from the cluster ends the stream instead of going quiet):
  // sends `request` (a create request), then hands each response to
  // `on_response` until the stream ends, `on_response` returns false, or
  // `cancel` is cancelled. A member that stops answering without closing its
  // connection ends it too (a probe after 10 s of silence, 3 s to answer).
  // `member` names the member for WatchFailed, set before the stream opens.
  EtcdRpcStatus Watch(const etcdserverpb::WatchRequest& request, EtcdGrpcCancel& cancel,
                      size_t* member,
                      const std::function<bool(const etcdserverpb::WatchResponse&)>& on_response);
  // A watch stream on `member` broke: later calls go to the next member.
  void WatchFailed(size_t member) { Advance(member); }

  // One DeleteRange RPC with a short deadline, for best-effort cleanup.
  EtcdRpcStatus DeleteRangeOnce(const etcdserverpb::DeleteRangeRequest& request,
                                std::chrono::milliseconds timeout);

  Clock::time_point OperationDeadline() const { return Clock::now() + options_.operation_timeout; }
  // Sleeps before retry number `attempt` (0-based): short at first, since a
  // member switch or an election usually settles within a second.
  static void Backoff(int attempt);

  // The location as the user wrote it, for messages.
  const std::string& display_location() const { return display_location_; }
  const EtcdStoreOptions& options() const { return options_; }

  // Throws IoError saying the cluster could not be reached in time.
  [[noreturn]] void ThrowUnreachable(const EtcdRpcStatus& last) const;

  // RPCs sent so far.
  EtcdRpcCounts rpc_counts() const {
    return {ranges_.load(std::memory_order_relaxed), txns_.load(std::memory_order_relaxed)};
  }

 private:
  EtcdGrpcChannel& CurrentChannel(size_t* index);
  void Advance(size_t from);

  std::string display_location_;
  EtcdStoreOptions options_;
  std::vector<std::unique_ptr<EtcdGrpcChannel>> channels_;  // one per member, in order
  std::atomic<size_t> current_{0};
  std::atomic<uint64_t> ranges_{0};
  std::atomic<uint64_t> txns_{0};
};

}  // namespace moraine::store
