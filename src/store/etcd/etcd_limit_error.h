#pragma once

// A commit the etcd cluster refuses for its configured limits (operations per
// transaction, bytes per request). Its own type, derived from
// InvalidArgumentError, so that callers can tell "this cluster is configured
// too small for this commit" from a malformed request; the message names the
// etcd flag to raise, never the raw gRPC text alone.
//
// Thread-safety: an error is immutable after construction: any thread may read
// one.

#include <string>

#include "store/error.h"

namespace moraine::store {

class EtcdLimitError : public InvalidArgumentError {
 public:
  explicit EtcdLimitError(const std::string& message) : InvalidArgumentError(message) {}
};

}  // namespace moraine::store
