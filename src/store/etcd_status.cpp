#include "store/etcd_status.h"

namespace moraine::store {
namespace {

bool Contains(const grpc::Status& status, const char* text) {
  return status.error_message().find(text) != std::string::npos;
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "status";
  }
}

}  // namespace

EtcdStatusKind ClassifyEtcdStatus(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return EtcdStatusKind::kOk;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::CANCELLED:
      return EtcdStatusKind::kTransient;
    case grpc::StatusCode::INVALID_ARGUMENT:
      if (Contains(status, "too many operations in txn request"))
        return EtcdStatusKind::kTooManyOps;
      if (Contains(status, "request is too large")) return EtcdStatusKind::kRequestTooLarge;
      return EtcdStatusKind::kOther;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      // gRPC's own size check on the server ("received message larger than
      // max") fires before etcd's for requests far over the limit.
      if (Contains(status, "larger than max")) return EtcdStatusKind::kRequestTooLarge;
      if (Contains(status, "database space exceeded")) return EtcdStatusKind::kNoSpace;
      if (Contains(status, "too many requests")) return EtcdStatusKind::kTransient;
      return EtcdStatusKind::kOther;
    case grpc::StatusCode::OUT_OF_RANGE:
      if (Contains(status, "compacted")) return EtcdStatusKind::kCompacted;
      if (Contains(status, "future revision")) return EtcdStatusKind::kFutureRevision;
      return EtcdStatusKind::kOther;
    default:
      return EtcdStatusKind::kOther;
  }
}

std::string DescribeEtcdStatus(const grpc::Status& status) {
  return std::string(CodeName(status.error_code())) + ": " + status.error_message();
}

}  // namespace moraine::store
