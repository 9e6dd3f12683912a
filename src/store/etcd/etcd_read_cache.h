#pragma once

// What an etcd store handle has read, kept so that later snapshots read it
// again without a round trip, and kept true by the lake's change stream
// (EtcdChangeWatch feeds every change of the watched keys, in revision
// order).
//
// A DuckLake commit on etcd made 15 serializable reads besides its snapshot
// and its Txn, nearly all of keys the previous commit had read; each is a
// round trip to a member. The cache answers those from memory when it can
// prove the answer is the one the cluster would give at the reader's
// revision:
//
// - `applied` is the revision up to which every change of the watched keys
//   has been applied here (changes arrive in revision order, all of one
//   revision together).
// - A snapshot at revision R names the revision `last_change` of the lake's
//   newest commit at R (every commit also writes the lake's commit marker, so
//   its mod revision is that). Nothing watched changed in (last_change, R].
//   Once applied >= last_change, every cached entry holds what it held at R,
//   unless a change after R replaced it: an entry is valid from the revision
//   it was last known to change (`valid_from`) on, and is served to a reader
//   at R only if valid_from <= R.
// - A value read from the cluster at R is kept only if R >= applied: changes
//   up to `applied` were applied while the key was not here, and a read at an
//   older revision could miss them. Later changes are applied to it as they
//   arrive.
// - A found key is valid from its mod revision; an absent key, and a
//   complete range, from the revision they were read at.
// - A change to a kept key or inside a kept range is applied to it (a range
//   is patched, not dropped: the commit that changed it is usually the next
//   reader's own), and the entry is valid from the change's revision on.
// - A key not kept but inside a kept range is answered from the range, and
//   so is a scan of part of a kept range.
//
// When the watch breaks, Suspend() stops every answer until Restart(), which
// forgets everything. Memory is bounded: past `capacity_bytes` the cache
// forgets everything and fills again.
//
// Thread-safety: every member may be called from any thread: mutex_ guards all
// state; readers of many snapshots and the watch thread call it concurrently.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/etcd/rpc.pb.h"

namespace moraine::store {

class EtcdReadCache {
 public:
  // One change of a watched key: a put of `value`, or a delete (nullopt).
  struct Change {
    std::string_view key;
    int64_t revision;
    std::optional<std::string_view> value;
  };
  // A lookup's outcome: `hit` false means "ask the cluster".
  struct Lookup {
    bool hit = false;
    std::optional<std::string> value;  // for a hit: the value, or absent
  };
  struct Counts {
    uint64_t hits = 0;
    uint64_t misses = 0;
  };

  explicit EtcdReadCache(size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Forgets everything; every change up to `revision` counts as applied
  // (the watch starts after it). Wakes waiting readers.
  void Restart(int64_t revision);
  // The changes of one watch response, in revision order.
  void Apply(const std::vector<Change>& changes);
  // The watch broke: nothing is answered until the next Restart.
  void Suspend();

  // The value of `key` at `revision`, for a snapshot whose lake last changed
  // at `last_change` (nullopt: unknown, never answered). Waits up to `wait`
  // for the watch to apply `last_change`.
  Lookup Get(const std::string& key, int64_t revision, std::optional<int64_t> last_change,
             std::chrono::milliseconds wait);
  // The newest value of `key` the cache knows (as of the newest change it
  // applied, or a newer read), if it keeps it; not counted as a lookup.
  Lookup Newest(const std::string& key) const;
  // The revision up to which every watched change is applied here; nullopt
  // while the watch is broken (suspended).
  std::optional<int64_t> Applied() const;
  // What a read of `key` at `revision` returned (null: absent).
  void RememberGet(const std::string& key, int64_t revision, const mvccpb::KeyValue* found);

  // The whole of [begin, end) at `revision`, as one Range response, if kept
  // and valid; null otherwise. Same conditions as Get.
  std::shared_ptr<const etcdserverpb::RangeResponse> GetRange(const std::string& begin,
                                                              const std::string& end,
                                                              int64_t revision,
                                                              std::optional<int64_t> last_change,
                                                              std::chrono::milliseconds wait);
  // A complete read of [begin, end) at `revision` (`response.more` false).
  void RememberRange(const std::string& begin, const std::string& end, int64_t revision,
                     std::shared_ptr<const etcdserverpb::RangeResponse> response);

  Counts counts() const;

 private:
  struct Entry {
    std::optional<std::string> value;
    int64_t valid_from;
  };
  // A kept range's response and how many scans are reading it. Patched in
  // place only when none is (counted under the mutex, the only place a scan
  // is lent it), copied first otherwise. A scan's release is a release
  // decrement the patch's load acquires: its reads happen before the patch.
  struct SharedRange {
    explicit SharedRange(etcdserverpb::RangeResponse kept) : response(std::move(kept)) {}
    etcdserverpb::RangeResponse response;
    std::atomic<int> readers{0};
  };
  struct RangeEntry {
    std::string end;
    std::shared_ptr<SharedRange> shared;
    int64_t valid_from;
    size_t bytes;
  };

  // `shared`'s response for a scan, counted as read until the scan drops it.
  static std::shared_ptr<const etcdserverpb::RangeResponse> LendLocked(
      std::shared_ptr<SharedRange> shared);
  // The kept value of `key` at `revision` (nullopt: the newest kept).
  Lookup LookupLocked(const std::string& key, std::optional<int64_t> revision) const;
  // Whether answers are possible for `last_change`, waiting up to `wait`.
  bool CoveredLocked(std::unique_lock<std::mutex>& lock, std::optional<int64_t> last_change,
                     std::chrono::milliseconds wait);
  bool MayRememberLocked(int64_t revision) const { return !suspended_ && revision >= applied_; }
  void ChargeLocked(size_t bytes);
  void ForgetLocked();
  // Applies `change` to every kept range holding its key.
  void PatchRangesLocked(const Change& change);
  using RangeMap = std::multimap<std::string, RangeEntry, std::less<>>;  // by begin
  // The kept range of exactly [begin, end), or ranges_.end().
  RangeMap::iterator FindRangeLocked(const std::string& begin, const std::string& end);
  // A kept range holding all of [begin, end), valid at `revision`, or null.
  const RangeEntry* RangeHoldingLocked(const std::string& begin, const std::string& end,
                                       int64_t revision) const;

  const size_t capacity_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable applied_changed_;
  bool suspended_ = true;
  int64_t applied_ = 0;
  size_t bytes_ = 0;
  std::map<std::string, Entry, std::less<>> entries_;
  RangeMap ranges_;
  Counts counts_;
};

}  // namespace moraine::store
