#pragma once

// The gRPC side of EtcdStore: one channel per cluster member (gRPC over
// HTTP/2, store/etcd/etcd_grpc_channel.h, over TLS for etcds://), calls with a
// per-RPC deadline, and failover to the next member when one does not answer.
// It knows etcd's KV, Watch and Auth services and nothing of moraine's keys
// or commits, except the lake's prefix, which it names when etcd refuses a
// permission.
//
// With a user, every call carries etcd's auth token: taken on the first call
// (Authenticate with the user's name and password) and taken again whenever a
// member answers that it does not know the token (it expired, or the member
// restarted and lost it), then the call is sent once more. A cluster whose
// auth is off answers Authenticate with "authentication is not enabled";
// calls then go without a token.
//
// Refusals no retry can mend throw at once, whatever the operation deadline:
// AccessDeniedError (credentials or certificates refused, a read or write
// permission lacking on the prefix) and InvalidArgumentError (TLS against a
// plain member, or the reverse). No message carries the password.
//
// Thread-safety: every member may be called from any thread: channels may be
// shared by threads, the member in use is an atomic index, and token_mutex_
// guards the token and auth_off_.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/etcd/etcd_grpc_channel.h"
#include "store/etcd/etcd_location.h"
#include "store/etcd/etcd_rpc_counts.h"
#include "store/etcd/etcd_rpc_status.h"
#include "store/etcd/etcd_security.h"
#include "store/etcd/etcd_store_options.h"
#include "store/etcd/rpc.pb.h"

namespace moraine::store {

class EtcdGrpcCancel;

class EtcdClient {
 public:
  using Clock = std::chrono::steady_clock;

  EtcdClient(const EtcdLocation& location, std::string display_location, EtcdStoreOptions options,
             const EtcdSecurity& security = {});

  // A read, retried on transient failures across members until the operation
  // deadline. A serializable read at a revision the member has not applied
  // yet is repeated linearizably. Throws IoError (unreachable cluster,
  // compacted revision, a revision the cluster does not have, ...).
  etcdserverpb::RangeResponse Range(const etcdserverpb::RangeRequest& request);

  // One Txn RPC on the current member; a transient failure moves later calls
  // to the next member. The caller settles what a failure means, except for
  // a refusal of credentials or of the write permission, which throws.
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

  // Moves later calls to the member that leads the cluster now, if a member
  // names it within `timeout`: a Txn sent to a follower is forwarded to the
  // leader and answered only once the follower has applied it too, and a
  // linearizable read there asks the leader first, so on the leader each
  // costs less (and a contended lake's commits, which take turns, follow
  // each other sooner). Best effort: members that do not answer are
  // skipped, and the client stays where it is if none names a leader; a
  // later election leaves it on a follower until a failure moves it on.
  void PreferLeader(std::chrono::milliseconds timeout);
  // The member calls go to now: its index among the location's endpoints.
  size_t current_member() const {
    return current_.load(std::memory_order_relaxed) % channels_.size();
  }

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
    return {.ranges = ranges_.load(std::memory_order_relaxed),
            .linearizable_ranges = linearizable_ranges_.load(std::memory_order_relaxed),
            .txns = txns_.load(std::memory_order_relaxed)};
  }

 private:
  EtcdGrpcChannel& CurrentChannel(size_t* index);
  // One unary call with the auth token (see above).
  EtcdRpcStatus Call(EtcdGrpcChannel& channel, std::string_view method,
                     const google::protobuf::MessageLite& request,
                     google::protobuf::MessageLite* response, std::chrono::milliseconds timeout);
  // Exchanges the user's name and password for a token through `channel`.
  EtcdRpcStatus Authenticate(EtcdGrpcChannel& channel);
  // Authenticates if a user is set and no token is held (nor auth off).
  EtcdRpcStatus EnsureToken(EtcdGrpcChannel& channel);
  // The token as request metadata; nothing without a user or with auth off.
  EtcdGrpcChannel::Metadata TokenMetadata() const;
  // Throws for a refusal no retry mends (see above); `permission` is what
  // the call needed of the prefix, "read" or "write".
  void ThrowIfRefused(const EtcdRpcStatus& status, std::string_view permission) const;
  void Advance(size_t from);

  std::string display_location_;
  std::string prefix_;
  EtcdStoreOptions options_;
  std::string user_;
  std::string password_;
  std::string cert_file_;  // names the user in messages when there is no user_
  mutable std::mutex token_mutex_;
  std::optional<std::string> token_;  // nullopt: none taken yet
  bool auth_off_ = false;             // the cluster said its auth is not enabled
  std::vector<std::unique_ptr<EtcdGrpcChannel>> channels_;  // one per member, in order
  std::atomic<size_t> current_{0};
  std::atomic<uint64_t> ranges_{0};
  std::atomic<uint64_t> linearizable_ranges_{0};
  std::atomic<uint64_t> txns_{0};
};

}  // namespace moraine::store
