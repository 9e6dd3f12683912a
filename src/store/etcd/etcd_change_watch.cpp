#include "store/etcd/etcd_change_watch.h"

#include <vector>

#include "store/error.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_commit_intent.h"
#include "store/etcd/etcd_grpc_cancel.h"
#include "store/etcd/etcd_read_cache.h"

namespace moraine::store {
namespace {

constexpr auto kRestartPause = std::chrono::milliseconds(200);

}  // namespace

EtcdChangeWatch::EtcdChangeWatch(std::shared_ptr<EtcdClient> client, std::string begin,
                                 std::string end, int64_t revision,
                                 std::shared_ptr<EtcdReadCache> cache, std::string intent_key,
                                 std::shared_ptr<EtcdCommitIntent> intent)
    : client_(std::move(client)),
      begin_(std::move(begin)),
      end_(std::move(end)),
      cache_(std::move(cache)),
      intent_key_(std::move(intent_key)),
      intent_(std::move(intent)) {
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
  for (;;) {
    if (from) {
      cache_->Restart(*from);
      WatchFrom(*from);
      cache_->Suspend();
      // Whatever claim the stream last showed may have gone meanwhile.
      if (intent_) intent_->Observe(std::nullopt);
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
    for (const auto& event : response.events()) {
      const auto& kv = event.kv();
      if (intent_ && kv.key() == intent_key_) {
        intent_->Observe(event.type() == mvccpb::Event::PUT
                             ? std::optional<std::string_view>(kv.value())
                             : std::nullopt);
        continue;
      }
      changes.push_back({kv.key(), kv.mod_revision(),
                         event.type() == mvccpb::Event::PUT
                             ? std::optional<std::string_view>(kv.value())
                             : std::nullopt});
    }
    if (!changes.empty()) cache_->Apply(changes);
    return true;
  });
  std::lock_guard lock(mutex_);
  cancel_ = nullptr;
  if (!stopping_) client_->WatchFailed(member);
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
