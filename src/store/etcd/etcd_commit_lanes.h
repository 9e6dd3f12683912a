#pragma once

// Commit tokens of one EtcdStore handle. Every commit Txn also puts a fresh
// token into a key only this handle writes (its lane) and compares that key
// with the token the handle last left there. So when an RPC fails with an
// unknown outcome, reading the lane settles it: the attempt's token is there
// (it committed) or it is not, and then a fence token written in its place
// makes the lost attempt's compare fail forever, should it still be in flight.
//
// A handle has as many lanes as it has commits in flight at once, so threads
// sharing a handle never race on one lane.
//
// Thread-safety: EtcdCommitLanes may be called from any thread (mutex_ guards
// the free lanes, the token counter is atomic); a lane, and the EtcdLaneHold
// holding it, belong to one commit.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace moraine::store {

struct EtcdCommitLane {
  std::string key;
  // What the key holds, as far as this handle knows (nullopt: absent). A
  // wrong guess is harmless: the compare fails, and the failed Txn reports
  // the real value.
  std::optional<std::string> token;
};

class EtcdCommitLanes {
 public:
  explicit EtcdCommitLanes(const std::string& token_prefix);

  std::unique_ptr<EtcdCommitLane> Acquire();
  void Release(std::unique_ptr<EtcdCommitLane> lane);

  // Unique across attempts, handles and processes: a random handle id and a counter.
  std::string NewToken();

  // The handle's random id, unique among a lake's handles.
  const std::string& handle_id() const { return handle_id_; }
  // Every lane key of this handle starts with this.
  const std::string& handle_prefix() const { return handle_prefix_; }
  bool used() const;

 private:
  std::string handle_id_;
  std::string handle_prefix_;
  std::atomic<uint64_t> next_token_{0};
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<EtcdCommitLane>> free_;
  size_t created_ = 0;
};

// Holds a lane for one commit and gives it back on every exit path.
class EtcdLaneHold {
 public:
  explicit EtcdLaneHold(EtcdCommitLanes& lanes) : lanes_(lanes), lane_(lanes.Acquire()) {}
  ~EtcdLaneHold() { lanes_.Release(std::move(lane_)); }
  EtcdLaneHold(const EtcdLaneHold&) = delete;
  EtcdLaneHold& operator=(const EtcdLaneHold&) = delete;
  EtcdCommitLane& operator*() { return *lane_; }
  EtcdCommitLane* operator->() { return lane_.get(); }

 private:
  EtcdCommitLanes& lanes_;
  std::unique_ptr<EtcdCommitLane> lane_;
};

}  // namespace moraine::store
