#include "store/etcd/etcd_commit_queue.h"

#include <algorithm>

namespace moraine::store {
namespace {

// The two slots of a handle's entry: a landing commit that keeps the
// handle's place deletes one and puts the other (etcd refuses a Txn that
// names one key twice).
constexpr char kFirstSlot = 'a';
constexpr char kSecondSlot = 'b';
// Begins the value of an entry that holds an intent; a handle's plain entry
// holds its name, which never begins with a NUL.
constexpr std::string_view kIntentMark("\0I", 2);

std::string OtherSlot(const std::string& key) {
  std::string other = key;
  other.back() = other.back() == kFirstSlot ? kSecondSlot : kFirstSlot;
  return other;
}

}  // namespace

EtcdCommitQueue::EtcdCommitQueue(std::string queue_prefix, std::string_view self)
    : queue_prefix_(std::move(queue_prefix)),
      own_base_(queue_prefix_ + std::string(self) + "/"),
      own_value_(self),
      join_key_(own_base_ + kFirstSlot) {}

void EtcdCommitQueue::Observe(std::string_view key, std::optional<int64_t> create_revision,
                              int64_t mod_revision, std::string_view value) {
  {
    std::lock_guard lock(mutex_);
    const auto same_key = [&](const auto& entry) { return entry.second.key == key; };
    if (create_revision) {
      // A put to a queued key keeps its create revision; a new one is a new entry.
      const auto held = std::find_if(entries_.begin(), entries_.end(), same_key);
      if (held == entries_.end()) {
        entries_.emplace(*create_revision,
                         ShownEntry{std::string(key), mod_revision, std::string(value)});
      } else if (mod_revision >= held->second.mod_revision) {
        held->second.mod_revision = mod_revision;
        held->second.value = std::string(value);
      }
    } else if (auto gone = std::find_if(entries_.begin(), entries_.end(), same_key);
               gone != entries_.end()) {
      // Only the deletion of the entry this handle holds now ends its place:
      // the watch may show an older one's deletion after the handle joined again.
      if (own_ && own_->create_revision == gone->first) own_.reset();
      entries_.erase(gone);
    }
  }
  moved_.notify_all();
}

void EtcdCommitQueue::Forget() {
  {
    std::lock_guard lock(mutex_);
    entries_.clear();
    // Whether this handle's entry outlived the watch's gap is unknown: it
    // joins again (a put to a surviving entry keeps its place).
    own_.reset();
  }
  moved_.notify_all();
}

bool EtcdCommitQueue::OwnKeyLocked(std::string_view key) const {
  return key.starts_with(own_base_);
}

bool EtcdCommitQueue::OthersQueuedLocked() const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const auto& entry) { return !OwnKeyLocked(entry.second.key); });
}

bool EtcdCommitQueue::ShouldJoin() {
  std::lock_guard lock(mutex_);
  if (own_) return false;
  return lost_last_ || OthersQueuedLocked();
}

std::string EtcdCommitQueue::JoinKey() {
  std::lock_guard lock(mutex_);
  return join_key_;
}

void EtcdCommitQueue::Joined(int64_t create_revision) {
  {
    std::lock_guard lock(mutex_);
    own_ = Entry{join_key_, create_revision};
  }
  moved_.notify_all();
}

bool EtcdCommitQueue::Queued() {
  std::lock_guard lock(mutex_);
  return own_.has_value();
}

std::optional<EtcdCommitQueue::Entry> EtcdCommitQueue::OwnEntry() {
  std::lock_guard lock(mutex_);
  return own_;
}

bool EtcdCommitQueue::HoldsFirst() {
  std::lock_guard lock(mutex_);
  return own_ && OwnEntryShownLocked() && entries_.begin()->first == own_->create_revision;
}

void EtcdCommitQueue::StartCommit() {
  {
    std::lock_guard lock(mutex_);
    ++commits_in_flight_;
    ++commits_started_;
  }
  moved_.notify_all();
}

void EtcdCommitQueue::EndCommit() {
  {
    std::lock_guard lock(mutex_);
    --commits_in_flight_;
  }
  moved_.notify_all();
}

EtcdCommitQueue::Handover EtcdCommitQueue::PlanHandover() {
  std::lock_guard lock(mutex_);
  Handover handover;
  if (!own_) return handover;
  handover.ends = own_;
  // Two commits of this handle in flight would both put the other slot.
  if (commits_in_flight_ == 1 && OthersQueuedLocked()) handover.stays_at = OtherSlot(own_->key);
  return handover;
}

void EtcdCommitQueue::AfterCommit(bool landed, const Handover& handover,
                                  std::optional<int64_t> stayed_at) {
  {
    std::lock_guard lock(mutex_);
    lost_last_ = !landed;
    if (!landed || !handover.ends) return;
    const auto& ended = *handover.ends;
    if (const auto found = entries_.find(ended.create_revision);
        found != entries_.end() && found->second.key == ended.key) {
      entries_.erase(found);
    }
    // Unless another commit of this handle moved its place meanwhile (then
    // this one deleted a key already gone), the place is the one it put, or none.
    if (!own_ || own_->create_revision == ended.create_revision) {
      own_.reset();
      if (handover.stays_at && stayed_at) {
        own_ = Entry{*handover.stays_at, *stayed_at};
        join_key_ = *handover.stays_at;
      }
    }
  }
  moved_.notify_all();
}

std::optional<EtcdCommitQueue::Entry> EtcdCommitQueue::LeaveLocked() {
  std::optional<Entry> held;
  held.swap(own_);
  if (held) {
    entries_.erase(held->create_revision);
    // The next join puts the other slot: a put to this one could land before
    // the store's deletion of it, keep its create revision, and be deleted.
    join_key_ = OtherSlot(held->key);
  }
  return held;
}

std::optional<EtcdCommitQueue::Entry> EtcdCommitQueue::Leave() {
  std::optional<Entry> held;
  {
    std::lock_guard lock(mutex_);
    lost_last_ = false;
    held = LeaveLocked();
  }
  moved_.notify_all();
  return held;
}

bool EtcdCommitQueue::OwnEntryShownLocked() const {
  const auto found = entries_.find(own_->create_revision);
  return found != entries_.end() && found->second.key == own_->key;
}

EtcdCommitQueue::Turn EtcdCommitQueue::AwaitTurn() {
  std::unique_lock lock(mutex_);
  return AwaitTurnLocked(lock, nullptr);
}

EtcdCommitQueue::TurnOrOutcome EtcdCommitQueue::AwaitTurnOrOutcome(const std::string& offer_id) {
  std::unique_lock lock(mutex_);
  TurnOrOutcome result{AwaitTurnLocked(lock, &offer_id), std::nullopt};
  result.outcome = TakeOutcomeLocked(offer_id);
  return result;
}

std::optional<std::string> EtcdCommitQueue::TakeOutcome(const std::string& offer_id) {
  std::lock_guard lock(mutex_);
  return TakeOutcomeLocked(offer_id);
}

std::optional<std::string> EtcdCommitQueue::TakeOutcomeLocked(const std::string& offer_id) {
  auto shown = outcomes_.find(offer_id);
  if (shown == outcomes_.end()) return std::nullopt;
  std::string outcome = std::move(shown->second);
  outcomes_.erase(shown);
  return outcome;
}

EtcdCommitQueue::Turn EtcdCommitQueue::AwaitTurnLocked(std::unique_lock<std::mutex>& lock,
                                                       const std::string* outcome_of) {
  const auto start = Clock::now();
  int64_t waiting_on = 0;  // none: create revisions are positive
  auto since = start;
  Turn turn;
  for (;;) {
    if (!own_) return turn;
    if (outcome_of && outcomes_.contains(*outcome_of)) return turn;
    const auto now = Clock::now();
    if (!OwnEntryShownLocked()) {
      // The watch lags behind the put: wait for it to show the entries ahead,
      // at most kStall (then go: the head compare still decides).
      if (now >= start + kStall) return turn;
      moved_.wait_until(lock, start + kStall);
      continue;
    }
    const auto& first = *entries_.begin();
    if (waiting_on != 0 && waiting_on != first.first) turn.handed_on = true;
    if (first.first >= own_->create_revision) return turn;
    if (waiting_on != first.first) {
      waiting_on = first.first;
      since = now;
    }
    if (now >= since + kStall) {
      turn.stale.push_back({first.second.key, first.first});
      entries_.erase(entries_.begin());
      waiting_on = 0;  // a skipped entry hands nothing on
      continue;
    }
    moved_.wait_until(lock, since + kStall);
  }
}

std::string EtcdCommitQueue::IntentValue(std::string_view offer_id, std::string_view intent) {
  std::string value(kIntentMark);
  value.append(offer_id);
  value.push_back('\0');
  value.append(intent);
  return value;
}

std::string EtcdCommitQueue::NewOfferId() {
  std::lock_guard lock(mutex_);
  return own_value_ + "." + std::to_string(++offers_made_);
}

std::vector<EtcdCommitQueue::QueuedIntent> EtcdCommitQueue::IntentsBehind(size_t max) {
  std::lock_guard lock(mutex_);
  std::vector<QueuedIntent> intents;
  if (!own_ || !OwnEntryShownLocked() || entries_.begin()->first != own_->create_revision) {
    return intents;  // not this handle's turn
  }
  for (auto it = std::next(entries_.begin()); it != entries_.end() && intents.size() < max; ++it) {
    const std::string_view value = it->second.value;
    if (!value.starts_with(kIntentMark) || OwnKeyLocked(it->second.key)) continue;
    const size_t end = value.find('\0', kIntentMark.size());
    if (end == std::string_view::npos) continue;
    intents.push_back({{it->second.key, it->first},
                       it->second.mod_revision,
                       std::string(value.substr(kIntentMark.size(), end - kIntentMark.size())),
                       std::string(value.substr(end + 1))});
  }
  return intents;
}

void EtcdCommitQueue::ObserveOutcome(std::string_view offer_id, std::string_view outcome) {
  {
    std::lock_guard lock(mutex_);
    // Only this handle's outcomes are waited for; they are few, and taken.
    if (!offer_id.starts_with(own_value_ + ".")) return;
    outcomes_.insert_or_assign(std::string(offer_id), std::string(outcome));
  }
  moved_.notify_all();
}

std::optional<EtcdCommitQueue::Entry> EtcdCommitQueue::AwaitIdleTurn() {
  std::unique_lock lock(mutex_);
  std::optional<Clock::time_point> idle_since;
  uint64_t started = commits_started_;
  for (;;) {
    if (stopped_) return std::nullopt;
    // A commit that started and ended while this thread slept was not idle.
    if (started != commits_started_) {
      started = commits_started_;
      idle_since.reset();
    }
    const bool idle_first = own_ && commits_in_flight_ == 0 && OwnEntryShownLocked() &&
                            entries_.begin()->first == own_->create_revision &&
                            OthersQueuedLocked();
    if (!idle_first) {
      idle_since.reset();
      moved_.wait(lock);
      continue;
    }
    const auto now = Clock::now();
    if (!idle_since) idle_since = now;
    // A handle whose commit just lost is rebasing it, and will send it again
    // in its turn: it is given longer before it counts as idle.
    const auto grace = lost_last_ ? kIdleTurnAfterALoss : kIdleTurn;
    if (now >= *idle_since + grace) {
      auto held = LeaveLocked();
      lock.unlock();
      moved_.notify_all();
      return held;
    }
    moved_.wait_until(lock, *idle_since + grace);
  }
}

void EtcdCommitQueue::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  moved_.notify_all();
}

}  // namespace moraine::store
