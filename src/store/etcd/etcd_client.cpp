#include "store/etcd/etcd_client.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>

#include "store/error.h"
#include "store/etcd/etcd_grpc_cancel.h"
#include "store/etcd/etcd_status.h"

namespace moraine::store {
namespace {

constexpr std::string_view kRange = "/etcdserverpb.KV/Range";
constexpr std::string_view kTxn = "/etcdserverpb.KV/Txn";
constexpr std::string_view kDeleteRange = "/etcdserverpb.KV/DeleteRange";
constexpr std::string_view kWatch = "/etcdserverpb.Watch/Watch";
constexpr std::string_view kAuthenticate = "/etcdserverpb.Auth/Authenticate";
constexpr std::string_view kStatus = "/etcdserverpb.Maintenance/Status";

// A member that stops answering without closing its connection (stopped,
// or cut off by the network) would hold a watch stream silent for ever: after
// this much silence a cheap call checks that it still answers, within
// kProbeTimeout. The figures of the gRPC keepalive pings this replaces.
constexpr auto kWatchIdleProbe = std::chrono::milliseconds(10000);
constexpr auto kProbeTimeout = std::chrono::milliseconds(3000);

}  // namespace

EtcdClient::EtcdClient(const EtcdLocation& location, std::string display_location,
                       EtcdStoreOptions options, const EtcdSecurity& security)
    : display_location_(std::move(display_location)),
      prefix_(location.prefix),
      options_(options),
      user_(security.user),
      password_(security.password),
      cert_file_(security.cert_file) {
  for (const auto& endpoint : location.endpoints) {
    channels_.push_back(std::make_unique<EtcdGrpcChannel>(endpoint, location.tls, security));
  }
}

EtcdGrpcChannel::Metadata EtcdClient::TokenMetadata() const {
  std::lock_guard lock(token_mutex_);
  if (!token_ || token_->empty()) return {};
  return {{"token", *token_}};
}

EtcdRpcStatus EtcdClient::Authenticate(EtcdGrpcChannel& channel) {
  etcdserverpb::AuthenticateRequest request;
  request.set_name(user_);
  request.set_password(password_);
  etcdserverpb::AuthenticateResponse response;
  const EtcdRpcStatus status =
      channel.Call(kAuthenticate, request, &response, options_.rpc_timeout);
  std::lock_guard lock(token_mutex_);
  if (status.ok()) {
    token_ = response.token();
  } else if (status.message().find("authentication is not enabled") != std::string::npos) {
    token_ = std::string();
    auth_off_ = true;
    return {};
  }
  return status;
}

EtcdRpcStatus EtcdClient::EnsureToken(EtcdGrpcChannel& channel) {
  if (user_.empty()) return {};
  {
    std::lock_guard lock(token_mutex_);
    if (token_ || auth_off_) return {};
  }
  return Authenticate(channel);
}

EtcdRpcStatus EtcdClient::Call(EtcdGrpcChannel& channel, std::string_view method,
                               const google::protobuf::MessageLite& request,
                               google::protobuf::MessageLite* response,
                               std::chrono::milliseconds timeout) {
  if (EtcdRpcStatus token = EnsureToken(channel); !token.ok()) return token;
  EtcdRpcStatus status = channel.Call(method, request, response, timeout, TokenMetadata());
  if (!user_.empty() && ClassifyEtcdStatus(status) == EtcdStatusKind::kInvalidToken) {
    status = Authenticate(channel);
    if (status.ok()) status = channel.Call(method, request, response, timeout, TokenMetadata());
  }
  return status;
}

void EtcdClient::ThrowIfRefused(const EtcdRpcStatus& status, std::string_view permission) const {
  const EtcdStatusKind kind = ClassifyEtcdStatus(status);
  if (kind == EtcdStatusKind::kWrongProtocol) {
    const bool member_tls = status.message().find("speaks TLS only") != std::string::npos;
    throw InvalidArgumentError(
        member_tls ? "the etcd cluster at " + display_location_ +
                         " speaks TLS only; write the location as etcds:// with its CA_FILE"
                   : "the etcd cluster at " + display_location_ +
                         " does not speak TLS; write the location as etcd://");
  }
  if (kind != EtcdStatusKind::kAccessDenied) return;
  const std::string& message = status.message();
  const std::string who = !user_.empty() ? "user '" + user_ + "'"
                          : !cert_file_.empty()
                              ? "the user of client certificate '" + cert_file_ + "'"
                              : "an anonymous client";
  if (message.starts_with("TLS: ")) {
    throw AccessDeniedError("TLS with the etcd cluster at " + display_location_ +
                            " failed: " + message.substr(5));
  }
  if (message.find("authentication failed") != std::string::npos ||
      message.find("user name not found") != std::string::npos) {
    throw AccessDeniedError("the etcd cluster at " + display_location_ + " refused " + who +
                            ": wrong user name or password");
  }
  if (message.find("user name is empty") != std::string::npos) {
    throw AccessDeniedError("the etcd cluster at " + display_location_ +
                            " requires authentication: give a USER and PASSWORD or a client "
                            "certificate (a moraine_etcd secret, or MORAINE_ETCD_* in the "
                            "environment)");
  }
  if (status.code() == EtcdRpcCode::kPermissionDenied) {
    std::string subject = who;
    subject[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(subject[0])));
    throw AccessDeniedError(subject + " may not " + std::string(permission) +
                            " the lake's keys under the prefix '" + prefix_ +
                            "/' in the etcd cluster at " + display_location_ + "; grant its role " +
                            (permission == "read" ? "read" : "readwrite") + " on that prefix");
  }
  throw AccessDeniedError("the etcd cluster at " + display_location_ + " refused " + who + ": " +
                          DescribeEtcdStatus(status));
}

EtcdGrpcChannel& EtcdClient::CurrentChannel(size_t* index) {
  *index = current_.load(std::memory_order_relaxed) % channels_.size();
  return *channels_[*index];
}

void EtcdClient::PreferLeader(std::chrono::milliseconds timeout) {
  // The current member first: if it leads, one call settles it. Otherwise
  // the first answer names the leader, and the others are asked in turn
  // which of them it is (a member knows its own id only).
  const size_t first = current_member();
  uint64_t leader = 0;
  for (size_t step = 0; step < channels_.size(); ++step) {
    const size_t member = (first + step) % channels_.size();
    etcdserverpb::StatusResponse response;
    if (!Call(*channels_[member], kStatus, etcdserverpb::StatusRequest{}, &response, timeout)
             .ok()) {
      continue;
    }
    if (leader == 0) leader = response.leader();
    if (leader != 0 && response.header().member_id() == leader) {
      current_.store(member, std::memory_order_relaxed);
      return;
    }
  }
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
    const auto& sent = linearizable ? *linearizable : request;
    ranges_.fetch_add(1, std::memory_order_relaxed);
    if (!sent.serializable()) linearizable_ranges_.fetch_add(1, std::memory_order_relaxed);
    const EtcdRpcStatus status = Call(channel, kRange, sent, &response, options_.rpc_timeout);
    ThrowIfRefused(status, "read");
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
  EtcdRpcStatus status = Call(channel, kTxn, request, response, timeout);
  ThrowIfRefused(status, "write");
  if (ClassifyEtcdStatus(status) == EtcdStatusKind::kTransient) Advance(index);
  return status;
}

EtcdRpcStatus EtcdClient::Watch(
    const etcdserverpb::WatchRequest& request, EtcdGrpcCancel& cancel, size_t* member,
    const std::function<bool(const etcdserverpb::WatchResponse&)>& on_response) {
  auto& channel = CurrentChannel(member);
  // A stream's thread never throws: a refusal ends the stream like any other
  // failure, and the reads beside it report it.
  if (EtcdRpcStatus token = EnsureToken(channel); !token.ok()) return token;
  EtcdGrpcChannel::StreamOptions options;
  // etcd's own client sets this for WithRequireLeader.
  options.metadata = TokenMetadata();
  options.metadata.emplace_back("hasleader", "true");
  options.idle_probe_after = kWatchIdleProbe;
  // Any answer, even a refusal, shows the member alive; a serializable read
  // of one key's count is answered by the member alone, leader or not.
  etcdserverpb::RangeRequest probe;
  probe.set_key(request.create_request().key());
  probe.set_serializable(true);
  probe.set_count_only(true);
  options.probe = [&channel, &probe, metadata = options.metadata] {
    etcdserverpb::RangeResponse response;
    const auto code = channel.Call(kRange, probe, &response, kProbeTimeout, metadata).code();
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
  // The stream's next try carries a fresh token.
  if (!user_.empty() && ClassifyEtcdStatus(status) == EtcdStatusKind::kInvalidToken) {
    std::lock_guard lock(token_mutex_);
    token_.reset();
  }
  return status;
}

EtcdRpcStatus EtcdClient::DeleteRangeOnce(const etcdserverpb::DeleteRangeRequest& request,
                                          std::chrono::milliseconds timeout) {
  size_t index;
  auto& channel = CurrentChannel(&index);
  etcdserverpb::DeleteRangeResponse response;
  return Call(channel, kDeleteRange, request, &response, timeout);
}

}  // namespace moraine::store
