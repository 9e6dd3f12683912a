#pragma once

// What one commit may hold on an etcd cluster: its --max-txn-ops and
// --max-request-bytes, learned at open without writing anything, so that a
// commit too large is refused before it is sent, with the flag to raise.
//
// How they are learned (checked against etcd 3.4):
// - Operations: etcd's gRPC Txn handler counts max(compares, success ops,
//   failure ops) against --max-txn-ops before it evaluates anything. A probe
//   holds N serializable Range operations in the success branch of a compare
//   that is never true (a version below 0): read-only, so no member proposes
//   it through raft, and the empty failure branch runs. Refused with "too
//   many operations in txn request" above the limit. The search starts at
//   etcd's default (128, then 129), so a default cluster costs two probes,
//   and doubles from there (a limit of 8192 costs about a dozen).
// - Bytes: etcd's gRPC server accepts messages up to --max-request-bytes plus
//   a fixed 512 KiB overhead, and refuses a larger one with "received
//   message larger than max (<got> vs. <max>)" before etcd sees it. One
//   read-only probe of 16 MiB reads the limit from that message; a write
//   then counts against --max-request-bytes itself (etcd checks the raft
//   entry it would propose: the Txn plus a small envelope).
// Both limits are those of the member the client talks to: every member of
// a cluster should run with the same flags.
//
// Thread-safety: EtcdLimits is a value type; the probes may run on any thread,
// as `client` may.

#include <cstdint>
#include <optional>
#include <string>

namespace moraine::store {

class EtcdClient;

struct EtcdLimits {
  // nullopt: at least as high as the probe goes (kMaxProbedTxnOps, or 15.5
  // MiB of request), so moraine leaves the check to the cluster.
  std::optional<uint64_t> max_txn_ops;
  std::optional<uint64_t> max_request_bytes;
};

// What moraine needs of a cluster: DuckLake's own initialization of a lake
// (5 keys) and any minimal commit (a one-row INSERT puts 6 keys and the
// commit token, whatever the table's width; a small CREATE TABLE about a
// dozen) fit well within these.
inline constexpr uint64_t kMinEtcdTxnOps = 32;
inline constexpr uint64_t kMinEtcdRequestBytes = 256 * 1024;
// The most operations the probe tries (its request stays under the 512 KiB
// gRPC overhead, so it is never refused for its size).
inline constexpr uint64_t kMaxProbedTxnOps = 32768;
// Bytes etcd adds around a Txn in the raft entry it checks against
// --max-request-bytes (a request header and field framing), rounded up.
inline constexpr uint64_t kEtcdRaftEnvelopeBytes = 64;

// Probes the cluster through `client`, retrying transient failures until
// the client's operation timeout. `probe_key` is a key moraine never writes
// (the probes read nothing at it either). Throws IoError if no member answers.
EtcdLimits ProbeEtcdLimits(EtcdClient& client, const std::string& probe_key);

// What etcd lets this handle's user write: a Txn whose compare never holds,
// with a put of `probe_key` in its success branch, writes nothing but is
// checked against every key it names. Throws AccessDeniedError (naming the
// permission and the prefix) if the user may not write there, so a user who
// may only read learns it when the lake is opened, not at its first commit.
void RequireWritePermission(EtcdClient& client, const std::string& probe_key);

// Throws EtcdLimitError naming each flag of `limits` below what moraine
// needs (kMinEtcdTxnOps, kMinEtcdRequestBytes) and the value to set.
void RequireUsableEtcdLimits(const EtcdLimits& limits, const std::string& location);

// The messages of a commit the limits refuse: the flag, the value needed.
std::string TooManyOpsMessage(const std::string& location, uint64_t ops);
std::string RequestTooLargeMessage(const std::string& location, uint64_t bytes);

}  // namespace moraine::store
