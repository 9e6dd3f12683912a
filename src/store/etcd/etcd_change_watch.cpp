#include "store/etcd/etcd_change_watch.h"

#include <vector>

#include "store/error.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_commit_queue.h"
#include "store/etcd/etcd_grpc_cancel.h"
#include "store/etcd/etcd_read_cache.h"
#include "store/key_range.h"

namespace moraine::store {
namespace {

constexpr auto kRestartPause = std::chrono::milliseconds(200);

}  // namespace

EtcdChangeWatch::EtcdChangeWatch(std::shared_ptr<EtcdClient> client, std::string begin,
                                 std::string end, int64_t revision,
                                 std::shared_ptr<EtcdReadCache> cache,
                                 std::shared_ptr<EtcdCommitQueue> queue, std::string outcome_prefix)
    : client_(std::move(client)),
      begin_(std::move(begin)),
      end_(std::move(end)),
      outcome_prefix_(std::move(outcome_prefix)),
      cache_(std::move(cache)),
      queue_(std::move(queue)) {
  // Before the handle is used: a commit right after the open knows the queue.
  if (queue_) ReadQueueAt(revision);
  thread_ = std::thread([this, revision] { Run(revision); });
}

EtcdChangeWatch::~EtcdChangeWatch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (cancel_) cancel_->Cancel();
  }
  stopped_.notify_all();
  thread_.join();
}

void EtcdChangeWatch::Run(int64_t revision) {
  std::optional<int64_t> from = revision;
  for (bool first = true;; first = false) {
    if (from) {
      cache_->Restart(*from);
      if (queue_ && !first) ReadQueueAt(*from);
      WatchFrom(*from);
      cache_->Suspend();
      // Whatever the stream last showed of the queue may have gone meanwhile.
      if (queue_) queue_->Forget();
    }
    if (!Pause()) return;
    from = CurrentRevision();
  }
}

void EtcdChangeWatch::WatchFrom(int64_t revision) {
  EtcdGrpcCancel cancel;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    cancel_ = &cancel;
  }
  etcdserverpb::WatchRequest request;
  auto* create = request.mutable_create_request();
  create->set_key(begin_);
  create->set_range_end(end_);
  create->set_start_revision(revision + 1);
  std::vector<EtcdReadCache::Change> changes;
  size_t member = 0;
  client_->Watch(request, cancel, &member, [&](const etcdserverpb::WatchResponse& response) {
    // Cancelled: the start revision was compacted, or the member lost its
    // leader. Either way the stream delivers nothing more.
    if (response.canceled()) return false;
    changes.clear();
    const auto is_entry = [&](const mvccpb::KeyValue& kv) {
      return queue_ && kv.key().starts_with(queue_->prefix());
    };
    const auto is_outcome = [&](const mvccpb::KeyValue& kv) {
      return queue_ && !outcome_prefix_.empty() && kv.key().starts_with(outcome_prefix_);
    };
    for (const auto& event : response.events()) {
      const auto& kv = event.kv();
      if (is_entry(kv) || is_outcome(kv)) continue;
      changes.push_back({kv.key(), kv.mod_revision(),
                         event.type() == mvccpb::Event::PUT
                             ? std::optional<std::string_view>(kv.value())
                             : std::nullopt});
    }
    if (!changes.empty()) cache_->Apply(changes);
    // After the cache: a handle whose turn comes with a commit that deleted
    // the entry ahead finds that commit's head in the cache.
    // Outcomes before entries: a handle whose intent a group landed finds
    // its outcome by the time it sees its entry deleted (one revision).
    for (const auto& event : response.events()) {
      const auto& kv = event.kv();
      if (!is_outcome(kv) || event.type() != mvccpb::Event::PUT) continue;
      queue_->ObserveOutcome(std::string_view(kv.key()).substr(outcome_prefix_.size()), kv.value());
    }
    for (const auto& event : response.events()) {
      const auto& kv = event.kv();
      if (!is_entry(kv)) continue;
      if (event.type() == mvccpb::Event::PUT) {
        queue_->Observe(kv.key(), kv.create_revision(), kv.mod_revision(), kv.value());
      } else {
        queue_->Observe(kv.key(), std::nullopt);
      }
    }
    return true;
  });
  std::lock_guard lock(mutex_);
  cancel_ = nullptr;
  if (!stopping_) client_->WatchFailed(member);
}

void EtcdChangeWatch::ReadQueueAt(int64_t revision) {
  etcdserverpb::RangeRequest request;
  request.set_key(queue_->prefix());
  request.set_range_end(PrefixSuccessor(queue_->prefix()));
  request.set_revision(revision);
  try {
    const auto response = client_->Range(request);
    for (const auto& kv : response.kvs()) {
      queue_->Observe(kv.key(), kv.create_revision(), kv.mod_revision(), kv.value());
    }
  } catch (const Error&) {
    // Compacted or away: the queue is learned from the stream alone, and a
    // turn taken without knowing an entry ahead only races (the head
    // compare still decides).
  }
}

std::optional<int64_t> EtcdChangeWatch::CurrentRevision() {
  etcdserverpb::RangeRequest request;
  request.set_key(begin_);
  request.set_keys_only(true);
  try {
    return client_->Range(request).header().revision();
  } catch (const Error&) {
    return std::nullopt;  // the cluster is away: try again after a pause
  }
}

bool EtcdChangeWatch::Pause() {
  std::unique_lock lock(mutex_);
  return !stopped_.wait_for(lock, kRestartPause, [&] { return stopping_; });
}

}  // namespace moraine::store
