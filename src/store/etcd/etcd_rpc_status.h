#pragma once

// The outcome of one gRPC call to an etcd member: a code with gRPC's own
// numbering (the wire's grpc-status values, which etcd's fixed error messages
// are defined against) and the server's message, percent-decoded. Transport
// failures are given the code gRPC itself would give them (UNAVAILABLE,
// DEADLINE_EXCEEDED), so callers need not know how the call travelled.
//
// Thread-safety: a plain value: copyable, and safe to read from any thread.

#include <string>
#include <utility>

namespace moraine::store {

enum class EtcdRpcCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// "UNAVAILABLE", as gRPC spells the code; "status" for a number outside it.
const char* EtcdRpcCodeName(EtcdRpcCode code);

class EtcdRpcStatus {
 public:
  EtcdRpcStatus() = default;  // OK
  EtcdRpcStatus(EtcdRpcCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == EtcdRpcCode::kOk; }
  EtcdRpcCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  EtcdRpcCode code_ = EtcdRpcCode::kOk;
  std::string message_;
};

}  // namespace moraine::store
