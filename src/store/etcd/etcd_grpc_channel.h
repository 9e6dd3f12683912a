#pragma once

// gRPC to one etcd member, spoken over HTTP/2 through libcurl: cleartext
// HTTP/2 with prior knowledge (etcd serves gRPC and HTTP on one port and
// tells them apart by the request's content-type), or HTTP/2 over TLS (ALPN
// "h2") with the member's certificate verified and, if given, a client
// certificate. A call is a POST to
// "/<package>.<Service>/<Method>" whose body is the request message in
// gRPC's framing (a compressed flag of 0, a 4-byte big-endian length, the
// serialized message); the answer comes framed the same way, and its status
// in the grpc-status and grpc-message trailers (or in the headers of a
// trailers-only answer). Messages are never compressed and have no size limit.
//
// TLS failures that no retry can mend come back with codes of their own:
// UNAUTHENTICATED "TLS: ..." (an untrusted member certificate, a client
// certificate the member refused or that cannot be read, an unreadable CA
// file) and FAILED_PRECONDITION "protocol: ..." (TLS against a plain member or
// the reverse).
//
// Calls reuse connections: the channel keeps a pool of curl handles, each
// holding its own connection to the member; a call takes one, performs, and
// returns it, so consecutive calls on a thread skip the TCP and HTTP/2
// handshakes. A handle whose call failed in transport is dropped rather than
// returned, so a restarted member is reached again by the next call (no
// reconnect backoff). A stream has a connection of its own.
//
// Thread-safety: Call() and ServerStream() may be called from any number of
// threads at once; the channel must outlive them.

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/etcd/etcd_rpc_status.h"
#include "store/etcd/etcd_security.h"

namespace google::protobuf {
class MessageLite;
}

namespace moraine::store {

class EtcdGrpcCancel;

class EtcdGrpcChannel {
 public:
  // Request metadata: header names in lower case, e.g. {"hasleader", "true"}.
  using Metadata = std::vector<std::pair<std::string, std::string>>;

  // `endpoint` is "host:port" (an IPv6 host in brackets). With `tls`, the
  // channel speaks TLS with `security`'s CA file, client certificate and
  // server name (its user and password are the client's business).
  explicit EtcdGrpcChannel(std::string endpoint, bool tls = false,
                           const EtcdSecurity& security = {});
  ~EtcdGrpcChannel();
  EtcdGrpcChannel(const EtcdGrpcChannel&) = delete;
  EtcdGrpcChannel& operator=(const EtcdGrpcChannel&) = delete;

  const std::string& endpoint() const { return endpoint_; }

  // One unary call, e.g. method "/etcdserverpb.KV/Range", ended after
  // `timeout` with DEADLINE_EXCEEDED (the deadline is sent to the server
  // too). `response` is filled only if the status is OK.
  EtcdRpcStatus Call(std::string_view method, const google::protobuf::MessageLite& request,
                     google::protobuf::MessageLite* response, std::chrono::milliseconds timeout,
                     const Metadata& metadata = {});

  struct StreamOptions {
    Metadata metadata;
    // A member that stops answering without closing its connection leaves a
    // stream silent for ever. After this long without a byte from it,
    // `probe` runs (on the stream's thread, while the stream waits); if it
    // returns false the stream ends UNAVAILABLE. No probe: never checked.
    std::chrono::milliseconds idle_probe_after{10000};
    std::function<bool()> probe;
  };

  // A call that sends one request message and then reads the member's
  // answers, each message handed to `on_message` as it arrives, until the
  // server ends the call, `on_message` returns false (then OK), the member
  // fails the probe, or `cancel` is cancelled (CANCELLED). The request side
  // stays open all along: a bidirectional method (etcd's Watch) is not told
  // that the client has nothing more to send. Blocks until the call ends.
  EtcdRpcStatus ServerStream(std::string_view method, const google::protobuf::MessageLite& request,
                             const StreamOptions& options, EtcdGrpcCancel& cancel,
                             const std::function<bool(std::string_view message)>& on_message);

 private:
  struct Handle;

  Handle* Acquire();
  void Release(Handle* handle);
  Handle* NewHandle() const;
  std::string Url(std::string_view method) const;

  std::string endpoint_;
  bool tls_;
  EtcdSecurity security_;   // TLS material only: the password is cleared
  std::string base_url_;    // scheme and authority of every call's URL
  std::string connect_to_;  // "server:port:host:port" when a server name is set
  std::mutex mutex_;
  std::vector<Handle*> idle_;  // owned; most recently used last
};

}  // namespace moraine::store
