#include "store/etcd/etcd_read_cache.h"

#include <algorithm>
#include <atomic>

namespace moraine::store {
namespace {

// Map and string overhead per kept key, roughly: what makes many small keys
// count against the capacity like the bytes they really take.
constexpr size_t kEntryOverheadBytes = 96;

// The first of a page's ascending keys not below `key`.
template <typename Kvs>
auto FirstAtOrAfter(Kvs& kvs, std::string_view key) {
  return std::lower_bound(
      kvs.begin(), kvs.end(), key,
      [](const mvccpb::KeyValue& kv, std::string_view wanted) { return kv.key() < wanted; });
}

// The range [key, key + "\0"): the key alone.
std::string EndOfKeyAlone(const std::string& key) { return key + std::string(1, '\0'); }

}  // namespace

void EtcdReadCache::Restart(int64_t revision) {
  {
    std::lock_guard lock(mutex_);
    ForgetLocked();
    applied_ = revision;
    suspended_ = false;
  }
  applied_changed_.notify_all();
}

void EtcdReadCache::Suspend() {
  std::lock_guard lock(mutex_);
  suspended_ = true;
  ForgetLocked();
}

void EtcdReadCache::Apply(const std::vector<Change>& changes) {
  {
    std::lock_guard lock(mutex_);
    if (suspended_) return;
    for (const Change& change : changes) {
      PatchRangesLocked(change);
      auto it = entries_.find(change.key);
      // A key not kept needs nothing: a later read asks the cluster. One kept
      // from a read at or after this change already holds it.
      if (it != entries_.end() && change.revision >= it->second.valid_from) {
        const size_t old_size = it->second.value ? it->second.value->size() : 0;
        it->second.value = change.value ? std::optional<std::string>(*change.value) : std::nullopt;
        it->second.valid_from = change.revision;
        const size_t new_size = change.value ? change.value->size() : 0;
        bytes_ = bytes_ - old_size + new_size;
      }
      applied_ = std::max(applied_, change.revision);
    }
    if (bytes_ > capacity_bytes_) ForgetLocked();
  }
  applied_changed_.notify_all();
}

bool EtcdReadCache::CoveredLocked(std::unique_lock<std::mutex>& lock,
                                  std::optional<int64_t> last_change,
                                  std::chrono::milliseconds wait) {
  if (!last_change) return false;
  const auto covered = [&] { return !suspended_ && applied_ >= *last_change; };
  if (covered()) return true;
  if (wait.count() <= 0) return false;
  return applied_changed_.wait_for(lock, wait, covered);
}

EtcdReadCache::Lookup EtcdReadCache::LookupLocked(const std::string& key,
                                                  std::optional<int64_t> revision) const {
  Lookup lookup;
  if (auto it = entries_.find(key); it != entries_.end()) {
    if (!revision || it->second.valid_from <= *revision) {
      lookup.hit = true;
      lookup.value = it->second.value;
    }
  } else if (const RangeEntry* range =
                 RangeHoldingLocked(key, EndOfKeyAlone(key), revision.value_or(applied_))) {
    const auto& kvs = range->shared->response.kvs();
    auto at = FirstAtOrAfter(kvs, key);
    lookup.hit = true;
    if (at != kvs.end() && at->key() == key) lookup.value = at->value();
  }
  return lookup;
}

EtcdReadCache::Lookup EtcdReadCache::Get(const std::string& key, int64_t revision,
                                         std::optional<int64_t> last_change,
                                         std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  Lookup lookup;
  if (CoveredLocked(lock, last_change, wait)) lookup = LookupLocked(key, revision);
  ++(lookup.hit ? counts_.hits : counts_.misses);
  return lookup;
}

EtcdReadCache::Lookup EtcdReadCache::Newest(const std::string& key) const {
  std::lock_guard lock(mutex_);
  if (suspended_) return {};
  return LookupLocked(key, std::nullopt);
}

std::optional<int64_t> EtcdReadCache::Applied() const {
  std::lock_guard lock(mutex_);
  if (suspended_) return std::nullopt;
  return applied_;
}

void EtcdReadCache::RememberGet(const std::string& key, int64_t revision,
                                const mvccpb::KeyValue* found) {
  std::lock_guard lock(mutex_);
  if (!MayRememberLocked(revision)) return;
  Entry entry{found ? std::optional<std::string>(found->value()) : std::nullopt,
              found ? found->mod_revision() : revision};
  auto [it, inserted] = entries_.try_emplace(key, entry);
  if (inserted) {
    ChargeLocked(key.size() + kEntryOverheadBytes + (entry.value ? entry.value->size() : 0));
  } else if (entry.valid_from >= it->second.valid_from) {
    bytes_ -= it->second.value ? it->second.value->size() : 0;
    it->second = std::move(entry);
    ChargeLocked(it->second.value ? it->second.value->size() : 0);
  }
}

std::shared_ptr<const etcdserverpb::RangeResponse> EtcdReadCache::GetRange(
    const std::string& begin, const std::string& end, int64_t revision,
    std::optional<int64_t> last_change, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  std::shared_ptr<const etcdserverpb::RangeResponse> found;
  if (CoveredLocked(lock, last_change, wait)) {
    const auto kept = FindRangeLocked(begin, end);
    if (kept != ranges_.end() && kept->second.valid_from <= revision) {
      found = LendLocked(kept->second.shared);
    } else if (const RangeEntry* range = RangeHoldingLocked(begin, end, revision)) {
      auto slice = std::make_shared<etcdserverpb::RangeResponse>();
      const auto& kvs = range->shared->response.kvs();
      for (auto at = FirstAtOrAfter(kvs, begin); at != kvs.end() && at->key() < end; ++at) {
        *slice->add_kvs() = *at;
      }
      found = std::move(slice);
    }
  }
  ++(found ? counts_.hits : counts_.misses);
  return found;
}

void EtcdReadCache::RememberRange(const std::string& begin, const std::string& end,
                                  int64_t revision,
                                  std::shared_ptr<const etcdserverpb::RangeResponse> read) {
  std::lock_guard lock(mutex_);
  if (!MayRememberLocked(revision) || read->more()) return;
  // The cache patches what it keeps; the scan that read it keeps reading
  // its own copy.
  auto shared = std::make_shared<SharedRange>(*read);
  if (const auto kept = FindRangeLocked(begin, end); kept != ranges_.end()) {
    bytes_ -= kept->second.bytes;
    ranges_.erase(kept);
  }
  const size_t bytes =
      begin.size() + end.size() + kEntryOverheadBytes + shared->response.ByteSizeLong();
  ranges_.emplace(begin, RangeEntry{end, std::move(shared), revision, bytes});
  ChargeLocked(bytes);
}

std::shared_ptr<const etcdserverpb::RangeResponse> EtcdReadCache::LendLocked(
    std::shared_ptr<SharedRange> shared) {
  shared->readers.fetch_add(1, std::memory_order_relaxed);
  const etcdserverpb::RangeResponse* response = &shared->response;
  return {response, [shared = std::move(shared)](const etcdserverpb::RangeResponse*) {
            shared->readers.fetch_sub(1, std::memory_order_release);
          }};
}

EtcdReadCache::Counts EtcdReadCache::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

void EtcdReadCache::ChargeLocked(size_t bytes) {
  bytes_ += bytes;
  if (bytes_ > capacity_bytes_) ForgetLocked();
}

void EtcdReadCache::ForgetLocked() {
  entries_.clear();
  ranges_.clear();
  bytes_ = 0;
}

void EtcdReadCache::PatchRangesLocked(const Change& change) {
  // Every range beginning at or before the key may hold it.
  const auto stop = ranges_.upper_bound(change.key);
  for (auto it = ranges_.begin(); it != stop; ++it) {
    RangeEntry& range = it->second;
    // A range read after the change holds it already. (One read at the
    // change's revision holds it too, but applying it again changes nothing,
    // and a patch at that revision must take every change of the revision.)
    if (!(change.key < range.end) || change.revision < range.valid_from) continue;
    if (range.shared->readers.load(std::memory_order_acquire) > 0) {
      range.shared = std::make_shared<SharedRange>(range.shared->response);
    }
    auto* kvs = range.shared->response.mutable_kvs();
    auto at = FirstAtOrAfter(*kvs, change.key);
    const int index = static_cast<int>(at - kvs->begin());
    const bool present = at != kvs->end() && at->key() == change.key;
    const size_t before = range.bytes;
    if (present) range.bytes -= at->ByteSizeLong();
    if (change.value && present) {
      at->set_value(std::string(*change.value));
      at->set_mod_revision(change.revision);
    } else if (change.value) {
      auto* added = kvs->Add();
      added->set_key(std::string(change.key));
      added->set_value(std::string(*change.value));
      added->set_mod_revision(change.revision);
      for (int i = kvs->size() - 1; i > index; --i) kvs->SwapElements(i, i - 1);
    } else if (present) {
      kvs->DeleteSubrange(index, 1);
    }
    if (change.value) range.bytes += kvs->Get(index).ByteSizeLong();
    range.valid_from = change.revision;
    bytes_ = bytes_ - before + range.bytes;
  }
}

EtcdReadCache::RangeMap::iterator EtcdReadCache::FindRangeLocked(const std::string& begin,
                                                                 const std::string& end) {
  auto [first, last] = ranges_.equal_range(begin);
  for (auto it = first; it != last; ++it) {
    if (it->second.end == end) return it;
  }
  return ranges_.end();
}

const EtcdReadCache::RangeEntry* EtcdReadCache::RangeHoldingLocked(const std::string& begin,
                                                                   const std::string& end,
                                                                   int64_t revision) const {
  // Every range beginning at or before `begin` may hold it.
  const auto stop = ranges_.upper_bound(begin);
  for (auto it = ranges_.begin(); it != stop; ++it) {
    if (end <= it->second.end && it->second.valid_from <= revision) return &it->second;
  }
  return nullptr;
}

}  // namespace moraine::store
