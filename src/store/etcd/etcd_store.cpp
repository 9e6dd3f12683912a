#include "store/etcd/etcd_store.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <utility>

#include "store/error.h"
#include "store/etcd/etcd_change_watch.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_commit_lanes.h"
#include "store/etcd/etcd_commit_queue.h"
#include "store/etcd/etcd_limit_error.h"
#include "store/etcd/etcd_limits.h"
#include "store/etcd/etcd_location.h"
#include "store/etcd/etcd_read_cache.h"
#include "store/etcd/etcd_snapshot.h"
#include "store/etcd/etcd_status.h"
#include "store/overlaid_snapshot.h"

namespace moraine::store {
namespace {

using etcdserverpb::Compare;
using etcdserverpb::TxnRequest;
using etcdserverpb::TxnResponse;

// How long a member may take to say which member leads (a stopped one is
// skipped after it): short, since it is asked at every open.
constexpr auto kLeaderQuestionTimeout = std::chrono::milliseconds(300);

// Raises `at_least` to `value` unless it holds more already.
void RaiseTo(std::atomic<int64_t>& at_least, int64_t value) {
  int64_t seen = at_least.load(std::memory_order_relaxed);
  while (seen < value && !at_least.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// The batch with only the last operation per key, in batch order of those
// last operations (etcd refuses a Txn naming one key twice).
std::vector<const WriteBatch::Op*> Collapse(const WriteBatch& batch) {
  std::unordered_map<std::string_view, size_t> last;
  last.reserve(batch.size());
  for (size_t i = 0; i < batch.ops().size(); ++i) last[batch.ops()[i].key] = i;
  std::vector<const WriteBatch::Op*> ops;
  ops.reserve(last.size());
  for (size_t i = 0; i < batch.ops().size(); ++i) {
    if (last[batch.ops()[i].key] == i) ops.push_back(&batch.ops()[i]);
  }
  return ops;
}

// version == 0 holds for an absent key (etcd compares a missing key as a
// zero KeyValue), and for no present one.
void CompareAbsent(Compare* compare, const std::string& key) {
  compare->set_key(key);
  compare->set_target(Compare::VERSION);
  compare->set_result(Compare::EQUAL);
  compare->set_version(0);
}

// A value compare fails on an absent key, as it should.
void CompareValue(Compare* compare, const std::string& key, const std::string& value) {
  compare->set_key(key);
  compare->set_target(Compare::VALUE);
  compare->set_result(Compare::EQUAL);
  compare->set_value(value);
}

void CompareOptional(Compare* compare, const std::string& key,
                     const std::optional<std::string>& value) {
  if (value) {
    CompareValue(compare, key, *value);
  } else {
    CompareAbsent(compare, key);
  }
}

void AddPut(google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>* ops,
            const std::string& key, const std::string& value) {
  auto* put = ops->Add()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
}

// The revision the head last changed at, from a failed head commit's second
// read (0 if the head is absent). Not the response header's revision: that
// may be a write outside the lake (another lake on the cluster, or a commit
// token), which the lake's watch never shows.
int64_t HeadRevision(const TxnResponse& response) {
  if (response.responses_size() < 2) return 0;
  const auto& range = response.responses(1).response_range();
  return range.kvs_size() == 0 ? 0 : range.kvs(0).mod_revision();
}

// A compare that `key` was created at `create_revision` (fails once it is
// deleted, and for a key created again).
void CompareCreateRevision(Compare* compare, const std::string& key, int64_t create_revision) {
  compare->set_key(key);
  compare->set_target(Compare::CREATE);
  compare->set_result(Compare::EQUAL);
  compare->set_create_revision(create_revision);
}

// A compare that `key` was last put at `mod_revision` (fails once it is
// deleted or put again).
void CompareModRevision(Compare* compare, const std::string& key, int64_t mod_revision) {
  compare->set_key(key);
  compare->set_target(Compare::MOD);
  compare->set_result(Compare::EQUAL);
  compare->set_mod_revision(mod_revision);
}

// The most intents one head commit lands with its own: the Txn's latency
// grows with its bytes (docs/research/cross-process-group-commit.md).
constexpr size_t kMaxGroup = 16;
// The largest intent a commit hands on (a one-row insert's is about 2 KiB).
constexpr size_t kMaxIntentBytes = size_t{64} << 10;

// The value a failure branch's Range at `index` read, if the key was there
// (0: a head commit's lane).
std::optional<std::string> ReadValue(const TxnResponse& response, int index) {
  if (response.responses_size() <= index) return std::nullopt;
  const auto& range = response.responses(index).response_range();
  if (range.kvs_size() == 0) return std::nullopt;
  return range.kvs(0).value();
}

// Puts a queue entry and reads it back in the same branch: the read tells
// its create revision, its place (a put to an entry that survived keeps it).
void AddEntryPut(google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>* ops,
                 const std::string& key, const std::string& value) {
  AddPut(ops, key, value);
  auto* read = ops->Add()->mutable_request_range();
  read->set_key(key);
  read->set_keys_only(true);
}

// The entry AddEntryPut's read-back found (null if none), from the response
// of a Txn whose applied branch ends with that read-back.
const mvccpb::KeyValue* EntryReadBack(const TxnResponse& response) {
  if (response.responses_size() == 0) return nullptr;
  const auto& read = response.responses(response.responses_size() - 1).response_range();
  return read.kvs_size() == 1 ? &read.kvs(0) : nullptr;
}

// Its create revision: the entry's place.
std::optional<int64_t> EntryPutAt(const TxnResponse& response) {
  const auto* entry = EntryReadBack(response);
  return entry ? std::optional<int64_t>(entry->create_revision()) : std::nullopt;
}

// Adds a landing commit's handover (EtcdCommitQueue::PlanHandover) to its
// Txn: the deletion of the entry it ends, and the put of the entry it stays
// at, which is dropped when the Txn has no room for it.
void AddHandover(TxnRequest& request, EtcdCommitQueue::Handover& handover,
                 const std::string& entry_value, const std::optional<uint64_t>& max_txn_ops) {
  if (handover.ends) {
    request.add_success()->mutable_request_delete_range()->set_key(handover.ends->key);
  }
  if (!handover.stays_at) return;
  if (max_txn_ops && static_cast<uint64_t>(request.success_size()) + 2 > *max_txn_ops) {
    handover.stays_at.reset();
    return;
  }
  AddEntryPut(request.mutable_success(), *handover.stays_at, entry_value);
}

}  // namespace

std::unique_ptr<EtcdStore> EtcdStore::Open(const KvOptions& options,
                                           const EtcdStoreOptions& etcd_options) {
  const EtcdLocation location = EtcdLocation::Parse(options.location);
  const EtcdSecurity security = options.etcd_security.value_or(EtcdSecurity::FromEnvironment());
  security.Check(location.tls, options.location);
  auto client = std::make_shared<EtcdClient>(location, options.location, etcd_options, security);
  // First, so that every call after it, the watch's stream included, goes
  // to the leader.
  client->PreferLeader(kLeaderQuestionTimeout);
  EtcdKeyspace keyspace(location.prefix);
  etcdserverpb::RangeRequest probe;
  probe.set_key(keyspace.data_prefix);
  probe.set_range_end(PrefixSuccessor(keyspace.data_prefix));
  probe.set_limit(1);
  probe.set_keys_only(true);
  const auto found = client->Range(probe);
  const bool exists = found.kvs_size() > 0;
  if (!exists && (options.read_only || !options.create_if_missing)) {
    throw NotFoundError("no moraine store at " + options.location + ": the etcd cluster holds no " +
                        "keys under the prefix '" + location.prefix + "'");
  }
  // A reader never commits: only a writer needs to know (and meet) the limits.
  EtcdLimits limits;
  if (!options.read_only) {
    RequireWritePermission(*client, keyspace.token_prefix);
    limits = ProbeEtcdLimits(*client, keyspace.token_prefix);
    RequireUsableEtcdLimits(limits, options.location);
  }
  return std::unique_ptr<EtcdStore>(new EtcdStore(options, etcd_options, std::move(client),
                                                  std::move(keyspace), limits,
                                                  found.header().revision()));
}

EtcdStore::EtcdStore(KvOptions options, EtcdStoreOptions etcd_options,
                     std::shared_ptr<EtcdClient> client, EtcdKeyspace keyspace, EtcdLimits limits,
                     int64_t open_revision)
    : options_(std::move(options)),
      etcd_options_(etcd_options),
      client_(std::move(client)),
      keyspace_(std::move(keyspace)),
      limits_(limits),
      lanes_(std::make_unique<EtcdCommitLanes>(keyspace_.token_prefix)) {
  if (etcd_options_.read_cache_bytes > 0) {
    read_cache_ = std::make_shared<EtcdReadCache>(etcd_options_.read_cache_bytes);
    if (!options_.read_only) {
      queue_ = std::make_shared<EtcdCommitQueue>(keyspace_.commit_queue, lanes_->handle_id());
    }
    watch_ = std::make_unique<EtcdChangeWatch>(client_, keyspace_.WatchBegin(),
                                               keyspace_.WatchEnd(), open_revision, read_cache_,
                                               queue_, keyspace_.commit_outcomes);
    if (queue_) idle_leaver_ = std::thread([this] { LeaveIdleTurns(); });
  }
}

EtcdStore::~EtcdStore() {
  if (queue_) {
    queue_->Stop();
    idle_leaver_.join();
  }
  watch_.reset();
  LeaveCommitQueue();
  // Best effort: a handle's outcome records and tokens mean nothing once it
  // is gone. If the cluster is away, they stay behind, a few bytes each.
  if (published_intents_.load(std::memory_order_relaxed)) {
    const std::string own_outcomes = keyspace_.commit_outcomes + lanes_->handle_id() + ".";
    etcdserverpb::DeleteRangeRequest outcomes;
    outcomes.set_key(own_outcomes);
    outcomes.set_range_end(PrefixSuccessor(own_outcomes));
    client_->DeleteRangeOnce(outcomes, std::chrono::milliseconds(1000));
  }
  if (!lanes_->used()) return;
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(lanes_->handle_prefix());
  request.set_range_end(PrefixSuccessor(lanes_->handle_prefix()));
  client_->DeleteRangeOnce(request, std::chrono::milliseconds(1000));
}

std::unique_ptr<KvSnapshot> EtcdStore::GetSnapshot() {
  // A linearizable read of the commit marker: its header holds the
  // cluster's current revision, its mod revision the lake's newest commit
  // (absent in a lake no commit of this version has written yet).
  etcdserverpb::RangeRequest request;
  request.set_key(keyspace_.commit_marker);
  request.set_keys_only(true);
  const auto response = client_->Range(request);
  std::optional<int64_t> last_change;
  if (response.kvs_size() > 0) last_change = response.kvs(0).mod_revision();
  return std::make_unique<EtcdSnapshot>(client_, keyspace_, response.header().revision(),
                                        etcd_options_.scan_page_size, read_cache_, last_change,
                                        etcd_options_.read_cache_wait);
}

std::unique_ptr<KvSnapshot> EtcdStore::GetSnapshotForCommit() {
  const auto applied = read_cache_ ? read_cache_->Applied() : std::nullopt;
  if (!applied) return GetSnapshot();
  const int64_t revision = std::max(*applied, lost_at_revision_.load(std::memory_order_relaxed));
  // No change of the lake after `revision` is known, so it stands as its
  // own last change: the cache answers once its watch has applied it.
  return std::make_unique<EtcdSnapshot>(client_, keyspace_, revision, etcd_options_.scan_page_size,
                                        read_cache_, revision, etcd_options_.read_cache_wait);
}

EtcdStore::ReadCacheCounts EtcdStore::read_cache_counts() const {
  if (!read_cache_) return {};
  const auto counts = read_cache_->counts();
  return {counts.hits, counts.misses};
}

EtcdRpcCounts EtcdStore::rpc_counts() const { return client_->rpc_counts(); }

size_t EtcdStore::current_member() const { return client_->current_member(); }

void EtcdStore::Write(const WriteBatch& batch) { Commit(nullptr, batch); }

namespace {

// A commit in flight for the commit queue, from construction to destruction.
class CommitInFlight {
 public:
  explicit CommitInFlight(EtcdCommitQueue& queue) : queue_(queue) { queue_.StartCommit(); }
  ~CommitInFlight() { queue_.EndCommit(); }
  CommitInFlight(const CommitInFlight&) = delete;
  CommitInFlight& operator=(const CommitInFlight&) = delete;

 private:
  EtcdCommitQueue& queue_;
};

// A commit that is durable once its Txn returned: etcd applied it through raft.
class AppliedWrite final : public LandedWrite {
 public:
  void AwaitDurable() override {}
};

}  // namespace

bool EtcdStore::WriteIfHeadUnchanged(std::string_view head_key,
                                     const std::optional<std::string>& expected_head_value,
                                     const WriteBatch& batch) {
  const HeadGuard head{head_key, expected_head_value};
  if (!queue_) return Commit(&head, batch) == Landing::kLanded;
  CommitInFlight in_flight(*queue_);
  const bool handed_on = TakeTurn();
  GroupStep group;
  return LandInTurn(head, batch, handed_on, group) == Landing::kLanded;
}

std::unique_ptr<LandedWrite> EtcdStore::LandOffered(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const WriteBatch& batch, CommitOffer& offer) {
  if (!queue_ || !etcd_options_.group_commit) {
    return KvStore::LandOffered(head_key, expected_head_value, batch, offer);
  }
  const HeadGuard head{head_key, expected_head_value};
  CommitInFlight in_flight(*queue_);
  std::optional<std::optional<std::string>> made;
  const IntentOnce intent = [&]() -> std::optional<std::string> {
    if (!made) made = offer.intent ? offer.intent() : std::nullopt;
    return *made;
  };
  const auto landed_elsewhere = [&](std::string outcome) {
    offer.outcome = std::move(outcome);
    return std::make_unique<AppliedWrite>();
  };
  // Holds this commit's intent from its publishing to its settling.
  GroupStep group;
  try {
    group.own_intent = PublishIntent(intent, offer.outcome);
    if (offer.outcome) return std::make_unique<AppliedWrite>();
    EtcdCommitQueue::TurnOrOutcome waited;
    if (group.own_intent) {
      waited = queue_->AwaitTurnOrOutcome(group.own_intent->offer_id);
    } else {
      waited.turn = queue_->AwaitTurn();
    }
    for (const auto& stale : waited.turn.stale) RemoveEntry(stale);
    if (waited.outcome) {
      KeepReadOutcomes({keyspace_.commit_outcomes + group.own_intent->offer_id});
      group.own_intent.reset();
      return landed_elsewhere(std::move(*waited.outcome));
    }
    switch (LandInTurn(head, batch, waited.turn.handed_on, group, &intent)) {
      case Landing::kLanded:
        offer.landed_others = !group.members.empty();
        return std::make_unique<AppliedWrite>();
      case Landing::kLandedReplayed:
        offer.landed_others = !group.members.empty();
        offer.landed_in_own_turn = true;
        return landed_elsewhere(std::move(*group.own_outcome));
      case Landing::kLandedElsewhere:
        return landed_elsewhere(std::move(*group.own_outcome));
      case Landing::kHeadMoved:
        // Lost: the intent must not land after this commit is retried.
        if (group.own_intent) {
          const OwnIntent published = *group.own_intent;
          group.own_intent.reset();
          if (auto outcome = WithdrawIntent(published)) {
            return landed_elsewhere(std::move(*outcome));
          }
        }
        return nullptr;
    }
  } catch (...) {
    // After an IoError the commit may or may not land, as any; still, its
    // intent is taken back if the cluster lets it.
    if (group.own_intent) {
      try {
        WithdrawIntent(*group.own_intent);
      } catch (const Error&) {
      }
    }
    throw;
  }
  return nullptr;
}

EtcdStore::Landing EtcdStore::LandInTurn(const HeadGuard& head, const WriteBatch& batch,
                                         bool handed_on, GroupStep& group,
                                         const IntentOnce* own_intent) {
  // A handle alone (never queued) has nobody to land and nothing to wait for.
  const bool grouping = etcd_options_.group_commit && replayer_ && (handed_on || queue_->Queued());
  // What lands: the batch on the expected head, or, if the head moved while
  // the commit waited, its intent replayed on the head it found.
  std::shared_ptr<const KvSnapshot> base;
  std::optional<std::string> found_head;
  std::optional<ReplayedIntent> replayed_own;
  if (grouping) {
    base = GetSnapshotForCommit();
    found_head = base->Get(head.key);
    if (found_head != head.expected && own_intent) {
      if (const auto intent = (*own_intent)()) {
        try {
          replayed_own = replayer_(std::make_unique<OverlaidSnapshot>(base, WriteBatch{}), *intent);
        } catch (const std::exception&) {
          // Not replayed here: it loses, and its writer meets the failure.
        }
      }
    }
  }
  const HeadGuard landing_head = replayed_own ? HeadGuard{head.key, found_head} : head;
  const WriteBatch& landing = replayed_own ? replayed_own->batch : batch;
  if (!replayed_own && handed_on && read_cache_) {
    // The turn came with another handle's landing commit: if the cache shows
    // it moved the head, this attempt has lost without a Txn. (Only then:
    // the cache may lag behind the snapshot this commit read, and a head it
    // shows older than the expected one would fail a commit that can land.)
    const auto newest = read_cache_->Newest(keyspace_.Data(head.key));
    if (newest.hit && newest.value != head.expected) {
      queue_->AfterCommit(false);
      return Landing::kHeadMoved;
    }
  }
  // The batch was staged on a snapshot holding the expected head; on any
  // other it does not land, and it gathers nobody.
  if (grouping && found_head == landing_head.expected) group.members = GatherGroup(base, landing);
  QueueStep step{queue_->PlanHandover(), std::nullopt};
  Landing landing_result = Commit(&landing_head, landing, &step, &group);
  queue_->AfterCommit(landing_result == Landing::kLanded, step.handover, step.stayed_at);
  if (landing_result == Landing::kLanded && replayed_own) {
    group.own_outcome = std::move(replayed_own->outcome);
    landing_result = Landing::kLandedReplayed;
  }
  return landing_result;
}

std::vector<EtcdStore::GroupMember> EtcdStore::GatherGroup(
    const std::shared_ptr<const KvSnapshot>& base, const WriteBatch& batch) {
  std::vector<GroupMember> members;
  auto queued = queue_->IntentsBehind(kMaxGroup);
  if (queued.empty()) return members;
  WriteBatch landing = batch;
  for (auto& intent : queued) {
    std::optional<ReplayedIntent> replayed;
    try {
      replayed = replayer_(std::make_unique<OverlaidSnapshot>(base, landing), intent.intent);
    } catch (const std::exception&) {
      // Its writer lands it itself, and meets whatever failed there.
    }
    if (!replayed) continue;
    landing.Append(replayed->batch);
    members.push_back(
        {std::move(intent), std::move(replayed->batch), std::move(replayed->outcome)});
  }
  return members;
}

std::optional<EtcdStore::OwnIntent> EtcdStore::PublishIntent(const IntentOnce& made_intent,
                                                             std::optional<std::string>& outcome) {
  const auto own = queue_->OwnEntry();
  // Alone, or first already: this commit lands at once.
  if ((!own && !queue_->ShouldJoin()) || (own && queue_->HoldsFirst())) return std::nullopt;
  auto intent = made_intent();
  // A large commit lands itself: a group's Txn should stay small.
  if (intent && intent->size() > kMaxIntentBytes) intent.reset();
  if (!intent) {
    if (!own) JoinQueue();
    return std::nullopt;
  }
  const std::string offer_id = queue_->NewOfferId();
  published_intents_.store(true, std::memory_order_relaxed);
  const std::string key = own ? own->key : queue_->JoinKey();
  const std::string value = EtcdCommitQueue::IntentValue(offer_id, *intent);
  TxnRequest request;
  // Into the entry it holds (keeping its place), unless that entry is gone.
  if (own) CompareCreateRevision(request.add_compare(), own->key, own->create_revision);
  // The outcome records this handle has read go with it: a handle whose
  // commits groups land may send no other Txn.
  std::vector<std::string> read_outcomes = TakeReadOutcomes();
  for (const auto& read : read_outcomes) {
    request.add_success()->mutable_request_delete_range()->set_key(read);
  }
  AddEntryPut(request.mutable_success(), key, value);  // last: its read-back tells the place
  if (!WithinLimits(request)) {
    KeepReadOutcomes(read_outcomes);
    if (!own) JoinQueue();  // too large to hand on: it lands itself
    return std::nullopt;
  }
  TxnResponse response;
  const auto status = client_->TxnOnce(request, &response);
  if (ClassifyEtcdStatus(status) == EtcdStatusKind::kOk) {
    if (!response.succeeded()) {
      KeepReadOutcomes(read_outcomes);
      return std::nullopt;  // the entry went meanwhile: it waits as it is
    }
    if (const auto* entry = EntryReadBack(response)) {
      if (!own) queue_->Joined(entry->create_revision());
      return OwnIntent{key, entry->mod_revision(), offer_id};
    }
  }
  KeepReadOutcomes(read_outcomes);  // deleting one twice is harmless
  // Whether the intent is in the entry is not known: it is taken out, unless
  // a group landed it already.
  const auto compare_value = [&](Compare* compare) { CompareValue(compare, key, value); };
  outcome = EndIntent(key, offer_id, compare_value, /*keep_place=*/false);
  return std::nullopt;
}

std::optional<std::string> EtcdStore::WithdrawIntent(const OwnIntent& intent) {
  const auto compare_revision = [&](Compare* compare) {
    CompareModRevision(compare, intent.key, intent.mod_revision);
  };
  auto outcome = EndIntent(intent.key, intent.offer_id, compare_revision, /*keep_place=*/true);
  queue_->TakeOutcome(intent.offer_id);  // if the watch showed it too
  return outcome;
}

std::optional<std::string> EtcdStore::EndIntent(const std::string& key, const std::string& offer_id,
                                                const std::function<void(Compare*)>& holds_it,
                                                bool keep_place) {
  const std::string outcome_key = keyspace_.commit_outcomes + offer_id;
  // Sent again as it is after an unknown outcome: once it applied, its
  // compare fails and reads no outcome.
  const auto response = TxnUntilAnswered(
      [&] {
        TxnRequest request;
        holds_it(request.add_compare());
        if (keep_place) {
          AddPut(request.mutable_success(), key, queue_->own_value());
        } else {
          request.add_success()->mutable_request_delete_range()->set_key(key);
        }
        request.add_failure()->mutable_request_range()->set_key(outcome_key);
        return request;
      },
      "take back a commit intent", client_->OperationDeadline(), /*pause_first=*/false);
  if (response.succeeded()) return std::nullopt;
  // The entry no longer holds it: a group landed it (its outcome is there),
  // or the entry was removed or put again (then nobody can).
  auto outcome = ReadValue(response, 0);
  if (outcome) KeepReadOutcomes({outcome_key});
  return outcome;
}

void EtcdStore::KeepReadOutcomes(const std::vector<std::string>& keys) {
  std::lock_guard lock(read_outcomes_mutex_);
  read_outcomes_.insert(read_outcomes_.end(), keys.begin(), keys.end());
}

std::vector<std::string> EtcdStore::TakeReadOutcomes() {
  std::lock_guard lock(read_outcomes_mutex_);
  return std::exchange(read_outcomes_, {});
}

bool EtcdStore::InCommitQueue() const { return queue_ && queue_->Queued(); }

bool EtcdStore::TakeTurn() {
  if (queue_->ShouldJoin()) JoinQueue();
  const auto turn = queue_->AwaitTurn();
  for (const auto& stale : turn.stale) RemoveEntry(stale);
  return turn.handed_on;
}

void EtcdStore::JoinQueue() {
  TxnRequest request;
  AddEntryPut(request.mutable_success(), queue_->JoinKey(), queue_->own_value());
  TxnResponse response;
  // Best effort: a handle that cannot join commits without its turn.
  if (ClassifyEtcdStatus(client_->TxnOnce(request, &response)) != EtcdStatusKind::kOk) return;
  if (const auto revision = EntryPutAt(response)) queue_->Joined(*revision);
}

void EtcdStore::LeaveIdleTurns() {
  while (const auto idle = queue_->AwaitIdleTurn()) RemoveEntry(*idle);
}

std::optional<int64_t> EtcdStore::EntryRevision(const std::string& key) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  request.set_keys_only(true);
  try {
    const auto response = client_->Range(request);
    if (response.kvs_size() == 1) return response.kvs(0).create_revision();
  } catch (const IoError&) {
    // Unreadable: the handle holds no place, and the entry is skipped as stale.
  }
  return std::nullopt;
}

void EtcdStore::LeaveCommitQueue() {
  if (!queue_) return;
  if (const auto held = queue_->Leave()) RemoveEntry(*held);
}

void EtcdStore::RemoveEntry(const EtcdCommitQueue::Entry& entry,
                            std::chrono::milliseconds timeout) {
  TxnRequest request;
  CompareCreateRevision(request.add_compare(), entry.key, entry.create_revision);
  request.add_success()->mutable_request_delete_range()->set_key(entry.key);
  TxnResponse response;
  client_->TxnOnce(request, &response, timeout);  // one left behind is skipped by the next waiter
}

EtcdStore::Landing EtcdStore::Commit(const HeadGuard* head, const WriteBatch& batch,
                                     QueueStep* queue_step, GroupStep* group) {
  if (options_.read_only) {
    throw ReadOnlyError("the store at " + options_.location + " is open read-only");
  }
  EtcdLaneHold lane(*lanes_);
  const auto deadline = client_->OperationDeadline();
  // Outcome records this handle read go with its next commit that lands.
  std::vector<std::string> read_outcomes = queue_ ? TakeReadOutcomes() : std::vector<std::string>{};
  struct ReturnUnlanded {
    EtcdStore& store;
    std::vector<std::string>& keys;
    bool landed = false;
    ~ReturnUnlanded() {
      if (!landed) store.KeepReadOutcomes(keys);
    }
  } return_unlanded{*this, read_outcomes};
  const auto own_intent = [&]() -> const OwnIntent* {
    return group && group->own_intent ? &*group->own_intent : nullptr;
  };
  // What lands: the batch, and the group's members' batches after it.
  WriteBatch grouped;
  size_t grouped_members = 0;
  EtcdRpcStatus last;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0 && EtcdClient::Clock::now() >= deadline) client_->ThrowUnreachable(last);
    const size_t members = group ? group->members.size() : 0;
    if (members != grouped_members) {
      grouped = batch;
      for (size_t i = 0; i < members; ++i) grouped.Append(group->members[i].batch);
      grouped_members = members;
    }
    const auto ops = Collapse(members ? grouped : batch);
    const std::string token = lanes_->NewToken();
    TxnRequest request;
    if (head) {
      CompareOptional(request.add_compare(), keyspace_.Data(head->key), head->expected);
    }
    CompareOptional(request.add_compare(), lane->key, lane->token);
    // This handle's intent, if published, must still be its entry's: else
    // a group landed it (or it can no longer land), and this must not.
    if (const auto* own = own_intent()) {
      CompareModRevision(request.add_compare(), own->key, own->mod_revision);
    }
    for (size_t i = 0; i < members; ++i) {
      const auto& queued = group->members[i].queued;
      CompareModRevision(request.add_compare(), queued.entry.key, queued.mod_revision);
    }
    for (const auto* op : ops) {
      if (op->type == WriteBatch::OpType::kPut) {
        AddPut(request.mutable_success(), keyspace_.Data(op->key), op->value);
      } else {
        request.add_success()->mutable_request_delete_range()->set_key(keyspace_.Data(op->key));
      }
    }
    AddPut(request.mutable_success(), lane->key, token);
    AddPut(request.mutable_success(), keyspace_.commit_marker, "");
    for (size_t i = 0; i < members; ++i) {
      const auto& member = group->members[i];
      request.add_success()->mutable_request_delete_range()->set_key(member.queued.entry.key);
      AddPut(request.mutable_success(), keyspace_.commit_outcomes + member.queued.offer_id,
             member.outcome);
    }
    for (const auto& key : read_outcomes) {
      request.add_success()->mutable_request_delete_range()->set_key(key);
    }
    // A queued handle's landing commit hands the turn on, and may queue it
    // again (read back: a put to a key that survived keeps its place).
    if (queue_step) {
      // Its own intent ends with it: in the entry the handover deletes or
      // puts again, or deleted here.
      auto& handover = queue_step->handover;
      if (const auto* own = own_intent();
          own && !(handover.ends && handover.ends->key == own->key)) {
        if (handover.stays_at == own->key) handover.stays_at.reset();
        request.add_success()->mutable_request_delete_range()->set_key(own->key);
      }
      AddHandover(request, queue_step->handover, queue_->own_value(), limits_.max_txn_ops);
    }
    // On a failed compare: which one failed? The lane's value tells, and the
    // head's (its revision says where a retry must read from); and the
    // outcome of this handle's intent, whether a group landed it.
    request.add_failure()->mutable_request_range()->set_key(lane->key);
    if (head) request.add_failure()->mutable_request_range()->set_key(keyspace_.Data(head->key));
    if (const auto* own = own_intent()) {
      request.add_failure()->mutable_request_range()->set_key(keyspace_.commit_outcomes +
                                                              own->offer_id);
    }
    if (members > 0 && !WithinLimits(request)) {
      group->members.pop_back();  // the last one waits for the next group
      continue;
    }
    RequireWithinLimits(request);

    TxnResponse response;
    last = client_->TxnOnce(request, &response);
    const auto landed = [&] {
      return_unlanded.landed = true;
      if (group) group->own_intent.reset();  // its entry went with this Txn
      return Landing::kLanded;
    };
    switch (ClassifyEtcdStatus(last)) {
      case EtcdStatusKind::kOk: {
        if (response.succeeded()) {
          lane->token = token;
          if (queue_step && queue_step->handover.stays_at) {
            queue_step->stayed_at = EntryPutAt(response);
          }
          return landed();
        }
        auto observed = ReadValue(response, 0);
        if (observed != lane->token) {
          // A stale attempt of ours (or a fence) landed late: not a conflict.
          lane->token = std::move(observed);
          continue;
        }
        if (!head) continue;
        if (const auto* own = own_intent()) {
          if (auto outcome = ReadValue(response, 2)) {
            // A group landed this handle's intent: the commit landed there.
            read_outcomes.push_back(keyspace_.commit_outcomes + own->offer_id);
            queue_->TakeOutcome(own->offer_id);  // if the watch showed it too
            group->own_outcome = std::move(outcome);
            group->own_intent.reset();
            return Landing::kLandedElsewhere;
          }
        }
        if (group && ReadValue(response, 1) == head->expected) {
          // The head held: an entry compare failed. A member withdrew its
          // intent, or this handle's own can no longer land (its entry went
          // without an outcome): send again without it.
          if (!group->members.empty()) {
            group->members.clear();
            continue;
          }
          if (group->own_intent) {
            group->own_intent.reset();
            continue;
          }
        }
        RaiseTo(lost_at_revision_, HeadRevision(response));
        return Landing::kHeadMoved;
      }
      case EtcdStatusKind::kTransient:
        unknown_outcomes_.fetch_add(1, std::memory_order_relaxed);
        if (Settle(*lane, token, deadline)) {
          settled_committed_.fetch_add(1, std::memory_order_relaxed);
          if (queue_step && queue_step->handover.stays_at) {
            queue_step->stayed_at = EntryRevision(*queue_step->handover.stays_at);
          }
          return landed();
        }
        EtcdClient::Backoff(attempt);
        continue;
      // A member with lower limits than the one probed at open.
      case EtcdStatusKind::kTooManyOps:
        throw EtcdLimitError(TooManyOpsMessage(options_.location, request.success_size()));
      case EtcdStatusKind::kRequestTooLarge:
        throw EtcdLimitError(RequestTooLargeMessage(
            options_.location, request.ByteSizeLong() + kEtcdRaftEnvelopeBytes));
      case EtcdStatusKind::kNoSpace:
        throw IoError("the etcd cluster at " + options_.location +
                      " is out of space (its --quota-backend-bytes): compact and defragment "
                      "it, or raise the quota, then disarm the NOSPACE alarm");
      default:
        throw IoError("the etcd cluster at " + options_.location +
                      " refused a commit: " + DescribeEtcdStatus(last));
    }
  }
}

std::optional<std::string> EtcdStore::LimitExceeded(const etcdserverpb::TxnRequest& request) const {
  // etcd counts the largest of the compares and the two branches.
  const auto ops = static_cast<uint64_t>(
      std::max({request.compare_size(), request.success_size(), request.failure_size()}));
  if (limits_.max_txn_ops && ops > *limits_.max_txn_ops) {
    return TooManyOpsMessage(options_.location, ops);
  }
  const uint64_t bytes = request.ByteSizeLong() + kEtcdRaftEnvelopeBytes;
  if (limits_.max_request_bytes && bytes > *limits_.max_request_bytes) {
    return RequestTooLargeMessage(options_.location, bytes);
  }
  return std::nullopt;
}

bool EtcdStore::WithinLimits(const etcdserverpb::TxnRequest& request) const {
  return !LimitExceeded(request);
}

void EtcdStore::RequireWithinLimits(const etcdserverpb::TxnRequest& request) const {
  if (auto exceeded = LimitExceeded(request)) throw EtcdLimitError(*exceeded);
}

bool EtcdStore::Settle(EtcdCommitLane& lane, const std::string& token,
                       EtcdClient::Clock::time_point deadline) {
  // If the token is there, the attempt committed; if not, a fence takes the
  // lane, and the attempt's compare (lane == previous token) can never pass.
  std::string fence;
  const auto response = TxnUntilAnswered(
      [&] {
        fence = lanes_->NewToken();
        TxnRequest request;
        CompareValue(request.add_compare(), lane.key, token);
        AddPut(request.mutable_failure(), lane.key, fence);
        return request;
      },
      "settle a commit", deadline, /*pause_first=*/true);
  lane.token = response.succeeded() ? token : fence;
  return response.succeeded();
}

TxnResponse EtcdStore::TxnUntilAnswered(const std::function<TxnRequest()>& build,
                                        std::string_view what,
                                        EtcdClient::Clock::time_point deadline, bool pause_first) {
  EtcdRpcStatus last;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0 && EtcdClient::Clock::now() >= deadline) client_->ThrowUnreachable(last);
    if (attempt > 0 || pause_first) EtcdClient::Backoff(attempt);
    const TxnRequest request = build();
    TxnResponse response;
    last = client_->TxnOnce(request, &response);
    const auto kind = ClassifyEtcdStatus(last);
    if (kind == EtcdStatusKind::kTransient) continue;
    if (kind != EtcdStatusKind::kOk) {
      throw IoError("the etcd cluster at " + options_.location + " refused to " +
                    std::string(what) + ": " + DescribeEtcdStatus(last));
    }
    return response;
  }
}

}  // namespace moraine::store
