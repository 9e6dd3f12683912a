#pragma once

// What a failed etcd gRPC call means for the caller: retry (on this or another
// member), or stop with a typed error. etcd reports most of its own errors as
// gRPC status codes with fixed "etcdserver: ..." messages (etcd's
// api/v3rpc/rpctypes), so the kind is read from the code and, where one code
// covers several causes (RESOURCE_EXHAUSTED, INVALID_ARGUMENT), the message.

#include <string>

#include "store/etcd/etcd_rpc_status.h"

namespace moraine::store {

enum class EtcdStatusKind {
  kOk,
  // No member answered, the member has no leader, the leader changed, the
  // request timed out, or the server shed load. A read may be retried; a
  // write's outcome is unknown and must be settled before anything else.
  kTransient,
  kTooManyOps,       // more operations in one Txn than --max-txn-ops
  kRequestTooLarge,  // a request over --max-request-bytes
  kNoSpace,          // the backend reached --quota-backend-bytes
  kCompacted,        // the revision read at was compacted away
  // A serializable read at a revision the member has not applied yet (it
  // lags the member that handed out the revision): read linearizably instead.
  kFutureRevision,
  // The member no longer knows the auth token sent (expired, or the member
  // restarted): authenticate again and retry.
  kInvalidToken,
  // Credentials refused (wrong password, no user where etcd's auth is on, a
  // certificate not trusted either way) or a permission the user lacks.
  kAccessDenied,
  // TLS spoken to a plain member, or cleartext to a TLS one.
  kWrongProtocol,
  kOther,  // anything else: a definitive failure
};

EtcdStatusKind ClassifyEtcdStatus(const EtcdRpcStatus& status);

// "UNAVAILABLE: etcdserver: no leader", for error messages.
std::string DescribeEtcdStatus(const EtcdRpcStatus& status);

}  // namespace moraine::store
