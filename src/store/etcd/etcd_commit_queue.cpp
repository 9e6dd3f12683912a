#include "store/etcd/etcd_commit_queue.h"

#include <algorithm>

namespace moraine::store {

EtcdCommitQueue::EtcdCommitQueue(std::string queue_prefix, std::string_view self)
    : queue_prefix_(std::move(queue_prefix)),
      own_key_(queue_prefix_ + std::string(self)),
      own_value_(self) {}

void EtcdCommitQueue::Observe(std::string_view key, std::optional<int64_t> create_revision) {
  {
    std::lock_guard lock(mutex_);
    const auto same_key = [&](const auto& entry) { return entry.second == key; };
    if (create_revision) {
      // A put to a queued key keeps its create revision; a new one is a new entry.
      if (std::none_of(entries_.begin(), entries_.end(), same_key)) {
        entries_.emplace(*create_revision, std::string(key));
      }
    } else if (auto gone = std::find_if(entries_.begin(), entries_.end(), same_key);
               gone != entries_.end()) {
      // Only the deletion of the entry this handle holds now ends its place:
      // the watch may show an older one's deletion after the handle joined again.
      if (own_revision_ == gone->first) own_revision_.reset();
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
    own_revision_.reset();
  }
  moved_.notify_all();
}

bool EtcdCommitQueue::ShouldJoin() {
  std::lock_guard lock(mutex_);
  if (own_revision_) return false;
  return lost_last_ || std::any_of(entries_.begin(), entries_.end(),
                                   [&](const auto& entry) { return entry.second != own_key_; });
}

void EtcdCommitQueue::Joined(int64_t create_revision) {
  std::lock_guard lock(mutex_);
  own_revision_ = create_revision;
}

bool EtcdCommitQueue::Queued() {
  std::lock_guard lock(mutex_);
  return own_revision_.has_value();
}

void EtcdCommitQueue::AfterCommit(bool landed) {
  std::lock_guard lock(mutex_);
  lost_last_ = !landed;
  if (landed && own_revision_) {
    entries_.erase(*own_revision_);
    own_revision_.reset();
  }
}

std::optional<int64_t> EtcdCommitQueue::Leave() {
  std::optional<int64_t> held;
  {
    std::lock_guard lock(mutex_);
    lost_last_ = false;
    held.swap(own_revision_);
    if (held) entries_.erase(*held);
  }
  return held;
}

bool EtcdCommitQueue::OwnEntryShownLocked() const {
  const auto found = entries_.find(*own_revision_);
  return found != entries_.end() && found->second == own_key_;
}

EtcdCommitQueue::Turn EtcdCommitQueue::AwaitTurn() {
  std::unique_lock lock(mutex_);
  const auto start = Clock::now();
  std::optional<int64_t> waiting_on;
  auto since = start;
  Turn turn;
  for (;;) {
    if (!own_revision_) return turn;
    const auto now = Clock::now();
    if (!OwnEntryShownLocked()) {
      // The watch lags behind the put: wait for it to show the entries ahead,
      // at most kStall (then go: the head compare still decides).
      if (now >= start + kStall) return turn;
      moved_.wait_until(lock, start + kStall);
      continue;
    }
    const auto& first = *entries_.begin();
    if (waiting_on && waiting_on != first.first) turn.handed_on = true;
    if (first.first >= *own_revision_) return turn;
    if (waiting_on != first.first) {
      waiting_on = first.first;
      since = now;
    }
    if (now >= since + kStall) {
      turn.stale.push_back({first.second, first.first});
      entries_.erase(entries_.begin());
      waiting_on.reset();  // a skipped entry hands nothing on
      continue;
    }
    moved_.wait_until(lock, since + kStall);
  }
}

}  // namespace moraine::store
