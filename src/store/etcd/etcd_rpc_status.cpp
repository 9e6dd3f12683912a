#include "store/etcd/etcd_rpc_status.h"

namespace moraine::store {

const char* EtcdRpcCodeName(EtcdRpcCode code) {
  switch (code) {
    case EtcdRpcCode::kOk:
      return "OK";
    case EtcdRpcCode::kCancelled:
      return "CANCELLED";
    case EtcdRpcCode::kUnknown:
      return "UNKNOWN";
    case EtcdRpcCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case EtcdRpcCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case EtcdRpcCode::kNotFound:
      return "NOT_FOUND";
    case EtcdRpcCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case EtcdRpcCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case EtcdRpcCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case EtcdRpcCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case EtcdRpcCode::kAborted:
      return "ABORTED";
    case EtcdRpcCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case EtcdRpcCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case EtcdRpcCode::kInternal:
      return "INTERNAL";
    case EtcdRpcCode::kUnavailable:
      return "UNAVAILABLE";
    case EtcdRpcCode::kDataLoss:
      return "DATA_LOSS";
    case EtcdRpcCode::kUnauthenticated:
      return "UNAUTHENTICATED";
  }
  return "status";
}

}  // namespace moraine::store
