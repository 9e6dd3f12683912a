#pragma once

// The change stream of one lake: an etcd watch on the lake's keys, from a
// revision on, whose events go to an EtcdReadCache in revision order. It
// runs on a thread of its own for as long as the object lives.
//
// A stream that breaks (a member stops, loses its leader, or compacted the
// revision the watch asked for) suspends the cache, and the watch starts
// again after a short pause on the next member, from the cluster's current
// revision, with an emptied cache: what happened in between is never
// guessed, only read again.
//
// Thread-safety: constructed and destroyed by one thread; the destructor
// stops the stream and joins the thread.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace moraine::store {

class EtcdClient;
class EtcdCommitQueue;
class EtcdGrpcCancel;
class EtcdReadCache;

class EtcdChangeWatch {
 public:
  // Watches [begin, end) for changes after `revision`. Changes of the
  // entries of `queue` (may be null) go to it instead of the cache, and its
  // entries are read at the revision each stream starts from (the first
  // time before the constructor returns); so do puts of commit outcomes,
  // the keys under `outcome_prefix` (EtcdCommitQueue::ObserveOutcome).
  EtcdChangeWatch(std::shared_ptr<EtcdClient> client, std::string begin, std::string end,
                  int64_t revision, std::shared_ptr<EtcdReadCache> cache,
                  std::shared_ptr<EtcdCommitQueue> queue = nullptr,
                  std::string outcome_prefix = {});
  ~EtcdChangeWatch();

  EtcdChangeWatch(const EtcdChangeWatch&) = delete;
  EtcdChangeWatch& operator=(const EtcdChangeWatch&) = delete;

 private:
  void Run(int64_t revision);
  // One stream, from `revision` on, until it ends or the watch stops.
  void WatchFrom(int64_t revision);
  // Shows the queue's entries at `revision` to it (best effort).
  void ReadQueueAt(int64_t revision);
  // The cluster's current revision, or nullopt if it cannot be read now.
  std::optional<int64_t> CurrentRevision();
  // Sleeps for the pause before another start; false if stopped meanwhile.
  bool Pause();

  std::shared_ptr<EtcdClient> client_;
  std::string begin_, end_, outcome_prefix_;
  std::shared_ptr<EtcdReadCache> cache_;
  std::shared_ptr<EtcdCommitQueue> queue_;

  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stopping_ = false;
  EtcdGrpcCancel* cancel_ = nullptr;  // of the stream open now
  std::thread thread_;
};

}  // namespace moraine::store
