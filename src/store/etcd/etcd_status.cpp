#include "store/etcd/etcd_status.h"

namespace moraine::store {
namespace {

bool Contains(const EtcdRpcStatus& status, const char* text) {
  return status.message().find(text) != std::string::npos;
}

}  // namespace

EtcdStatusKind ClassifyEtcdStatus(const EtcdRpcStatus& status) {
  if (Contains(status, "invalid auth token")) return EtcdStatusKind::kInvalidToken;
  switch (status.code()) {
    case EtcdRpcCode::kOk:
      return EtcdStatusKind::kOk;
    case EtcdRpcCode::kUnavailable:
    case EtcdRpcCode::kDeadlineExceeded:
    case EtcdRpcCode::kAborted:
    case EtcdRpcCode::kUnknown:
    case EtcdRpcCode::kInternal:
    case EtcdRpcCode::kCancelled:
      return EtcdStatusKind::kTransient;
    case EtcdRpcCode::kInvalidArgument:
      if (Contains(status, "too many operations in txn request"))
        return EtcdStatusKind::kTooManyOps;
      if (Contains(status, "request is too large")) return EtcdStatusKind::kRequestTooLarge;
      if (Contains(status, "authentication failed") || Contains(status, "user name is empty") ||
          Contains(status, "user name not found")) {
        return EtcdStatusKind::kAccessDenied;
      }
      return EtcdStatusKind::kOther;
    case EtcdRpcCode::kPermissionDenied:
    case EtcdRpcCode::kUnauthenticated:
      return EtcdStatusKind::kAccessDenied;
    case EtcdRpcCode::kFailedPrecondition:
      if (status.message().starts_with("protocol: ")) return EtcdStatusKind::kWrongProtocol;
      return EtcdStatusKind::kOther;
    case EtcdRpcCode::kResourceExhausted:
      // gRPC's own size check on the server ("received message larger than
      // max") fires before etcd's for requests far over the limit.
      if (Contains(status, "larger than max")) return EtcdStatusKind::kRequestTooLarge;
      if (Contains(status, "database space exceeded")) return EtcdStatusKind::kNoSpace;
      if (Contains(status, "too many requests")) return EtcdStatusKind::kTransient;
      return EtcdStatusKind::kOther;
    case EtcdRpcCode::kOutOfRange:
      if (Contains(status, "compacted")) return EtcdStatusKind::kCompacted;
      if (Contains(status, "future revision")) return EtcdStatusKind::kFutureRevision;
      return EtcdStatusKind::kOther;
    default:
      return EtcdStatusKind::kOther;
  }
}

std::string DescribeEtcdStatus(const EtcdRpcStatus& status) {
  return std::string(EtcdRpcCodeName(status.code())) + ": " + status.message();
}

}  // namespace moraine::store
