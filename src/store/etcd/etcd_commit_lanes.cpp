#include "store/etcd/etcd_commit_lanes.h"

#include <cstdio>
#include <random>

namespace moraine::store {
namespace {

std::string RandomHandleId() {
  std::random_device device;
  char text[33];
  std::snprintf(text, sizeof(text), "%08x%08x%08x%08x", device(), device(), device(), device());
  return text;
}

}  // namespace

EtcdCommitLanes::EtcdCommitLanes(const std::string& token_prefix)
    : handle_id_(RandomHandleId()), handle_prefix_(token_prefix + handle_id_ + "/") {}

std::unique_ptr<EtcdCommitLane> EtcdCommitLanes::Acquire() {
  std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    auto lane = std::move(free_.back());
    free_.pop_back();
    return lane;
  }
  auto lane = std::make_unique<EtcdCommitLane>();
  lane->key = handle_prefix_ + std::to_string(created_++);
  return lane;
}

void EtcdCommitLanes::Release(std::unique_ptr<EtcdCommitLane> lane) {
  std::lock_guard lock(mutex_);
  free_.push_back(std::move(lane));
}

std::string EtcdCommitLanes::NewToken() {
  return handle_id_ + ":" + std::to_string(next_token_.fetch_add(1) + 1);
}

bool EtcdCommitLanes::used() const {
  std::lock_guard lock(mutex_);
  return created_ > 0;
}

}  // namespace moraine::store
