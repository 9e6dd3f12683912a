#include "store/etcd/etcd_limits.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "store/error.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_limit_error.h"
#include "store/etcd/etcd_status.h"

namespace moraine::store {
namespace {

using etcdserverpb::TxnRequest;

constexpr uint64_t kEtcdDefaultTxnOps = 128;
// etcd's gRPC server accepts --max-request-bytes plus this much (its
// grpcOverheadBytes).
constexpr uint64_t kGrpcOverheadBytes = 512 * 1024;
constexpr uint64_t kSizeProbeBytes = 16 * 1024 * 1024;

// A Txn whose compare is never true: no key has a version below 0, and an
// absent key compares as version 0.
TxnRequest NeverTrue(const std::string& probe_key) {
  TxnRequest request;
  auto* compare = request.add_compare();
  compare->set_key(probe_key);
  compare->set_target(etcdserverpb::Compare::VERSION);
  compare->set_result(etcdserverpb::Compare::LESS);
  compare->set_version(0);
  return request;
}

void AddSerializableRange(TxnRequest* request, const std::string& key) {
  auto* range = request->add_success()->mutable_request_range();
  range->set_key(key);
  range->set_serializable(true);
  range->set_keys_only(true);
}

// One probe, retried while the cluster is away. Read-only, so retrying is
// safe. Its RPC deadline is never below a couple of seconds: a handle tuned
// for impatient commits must still learn the limits (a 16 MiB probe takes
// longer than a millisecond).
EtcdRpcStatus Probe(EtcdClient& client, const TxnRequest& request) {
  const auto deadline = client.OperationDeadline();
  const auto timeout = std::max(client.options().rpc_timeout, std::chrono::milliseconds(2000));
  for (int attempt = 0;; ++attempt) {
    etcdserverpb::TxnResponse response;
    EtcdRpcStatus status = client.TxnOnce(request, &response, timeout);
    if (ClassifyEtcdStatus(status) != EtcdStatusKind::kTransient) return status;
    if (EtcdClient::Clock::now() >= deadline) client.ThrowUnreachable(status);
    EtcdClient::Backoff(attempt);
  }
}

}  // namespace

void RequireWritePermission(EtcdClient& client, const std::string& probe_key) {
  TxnRequest request = NeverTrue(probe_key);
  auto* put = request.add_success()->mutable_request_put();
  put->set_key(probe_key);
  // TxnOnce throws for a refused permission; anything else is no answer.
  const EtcdRpcStatus status = Probe(client, request);
  if (!status.ok()) {
    throw IoError("the etcd cluster at " + client.display_location() +
                  " refused a probe of the write permission: " + DescribeEtcdStatus(status));
  }
}

namespace {

// Whether the cluster accepts a Txn of `ops` operations.
bool AcceptsOps(EtcdClient& client, const std::string& probe_key, uint64_t ops) {
  TxnRequest request = NeverTrue(probe_key);
  for (uint64_t i = 0; i < ops; ++i) AddSerializableRange(&request, probe_key);
  const EtcdRpcStatus status = Probe(client, request);
  switch (ClassifyEtcdStatus(status)) {
    case EtcdStatusKind::kOk:
      return true;
    case EtcdStatusKind::kTooManyOps:
      return false;
    default:
      throw IoError("the etcd cluster at " + client.display_location() +
                    " refused a probe of its --max-txn-ops: " + DescribeEtcdStatus(status));
  }
}

std::optional<uint64_t> ProbeTxnOps(EtcdClient& client, const std::string& probe_key) {
  uint64_t accepted = 0;  // the most ops known accepted
  uint64_t refused = 0;   // the fewest ops known refused
  if (!AcceptsOps(client, probe_key, kEtcdDefaultTxnOps)) {
    refused = kEtcdDefaultTxnOps;
  } else {
    if (!AcceptsOps(client, probe_key, kEtcdDefaultTxnOps + 1)) return kEtcdDefaultTxnOps;
    accepted = kEtcdDefaultTxnOps + 1;
    for (uint64_t ops = 2 * kEtcdDefaultTxnOps; refused == 0; ops *= 2) {
      if (ops > kMaxProbedTxnOps) return std::nullopt;
      (AcceptsOps(client, probe_key, ops) ? accepted : refused) = ops;
    }
    // Limits are mostly round numbers: the last power of two, typically.
    if (accepted > kEtcdDefaultTxnOps + 1) {
      if (!AcceptsOps(client, probe_key, accepted + 1)) return accepted;
      accepted += 1;
    }
  }
  while (refused - accepted > 1) {
    const uint64_t middle = accepted + (refused - accepted) / 2;
    (AcceptsOps(client, probe_key, middle) ? accepted : refused) = middle;
  }
  return accepted;
}

std::optional<uint64_t> ProbeRequestBytes(EtcdClient& client, const std::string& probe_key) {
  TxnRequest request = NeverTrue(probe_key);
  // Under the probe key, so a user whose role covers only the lake's prefix
  // may send it.
  AddSerializableRange(&request, probe_key + std::string(kSizeProbeBytes, 'x'));
  const EtcdRpcStatus status = Probe(client, request);
  const std::string& message = status.message();
  const size_t at = message.find(" vs. ");
  if (status.code() == EtcdRpcCode::kResourceExhausted && at != std::string::npos) {
    const uint64_t grpc_limit = std::strtoull(message.c_str() + at + 5, nullptr, 10);
    if (grpc_limit > kGrpcOverheadBytes) return grpc_limit - kGrpcOverheadBytes;
  }
  // Accepted: at least 15.5 MiB. Refused for size without the numbers (a
  // gRPC other than etcd 3.4's): unknown, and the cluster's own refusal
  // still names the flag.
  if (status.ok() || status.code() == EtcdRpcCode::kResourceExhausted) {
    return std::nullopt;
  }
  throw IoError("the etcd cluster at " + client.display_location() +
                " refused a probe of its --max-request-bytes: " + DescribeEtcdStatus(status));
}

}  // namespace

EtcdLimits ProbeEtcdLimits(EtcdClient& client, const std::string& probe_key) {
  EtcdLimits limits;
  limits.max_request_bytes = ProbeRequestBytes(client, probe_key);
  limits.max_txn_ops = ProbeTxnOps(client, probe_key);
  return limits;
}

void RequireUsableEtcdLimits(const EtcdLimits& limits, const std::string& location) {
  std::string problems;
  if (limits.max_txn_ops && *limits.max_txn_ops < kMinEtcdTxnOps) {
    problems += "--max-txn-ops is " + std::to_string(*limits.max_txn_ops) + ", moraine needs " +
                "at least " + std::to_string(kMinEtcdTxnOps);
  }
  if (limits.max_request_bytes && *limits.max_request_bytes < kMinEtcdRequestBytes) {
    problems += std::string(problems.empty() ? "" : "; ") + "--max-request-bytes is " +
                std::to_string(*limits.max_request_bytes) + ", moraine needs at least " +
                std::to_string(kMinEtcdRequestBytes);
  }
  if (problems.empty()) return;
  throw EtcdLimitError("the etcd cluster at " + location +
                       " is configured too small for a moraine lake (" + problems +
                       "): restart every member with those flags raised (see README, etcd)");
}

std::string TooManyOpsMessage(const std::string& location, uint64_t ops) {
  return "the etcd cluster at " + location + " cannot take a commit of " + std::to_string(ops) +
         " operations in one transaction (its keys, a commit token and the commit marker): start "
         "every member "
         "with --max-txn-ops of at least " +
         std::to_string(ops) + " (etcd's default is 128)";
}

std::string RequestTooLargeMessage(const std::string& location, uint64_t bytes) {
  return "the etcd cluster at " + location + " cannot take a commit of " + std::to_string(bytes) +
         " bytes in one request: start every member with --max-request-bytes of at least " +
         std::to_string(bytes) + " (etcd's default is 1.5 MiB)";
}

}  // namespace moraine::store
