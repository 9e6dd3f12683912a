#include "store/etcd/etcd_commit_intent.h"

#include <algorithm>
#include <charconv>

namespace moraine::store {

std::string EtcdCommitIntent::ClaimValue(Clock::time_point until) const {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(until.time_since_epoch()).count();
  return self_ + "|" + std::to_string(micros);
}

std::optional<EtcdCommitIntent::Claim> EtcdCommitIntent::Parse(std::string_view value) {
  const auto bar = value.rfind('|');
  if (bar == std::string_view::npos) return std::nullopt;
  int64_t micros = 0;
  const auto digits = value.substr(bar + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), micros);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return Claim{std::string(value.substr(0, bar)),
               Clock::time_point(std::chrono::microseconds(micros))};
}

void EtcdCommitIntent::Observe(std::optional<std::string_view> value) {
  {
    std::lock_guard lock(mutex_);
    claim_ = value ? Parse(*value) : std::nullopt;
    claim_value_ = claim_ ? std::string(*value) : std::string();
  }
  changed_.notify_all();
}

bool EtcdCommitIntent::OthersHold() {
  std::lock_guard lock(mutex_);
  return claim_ && claim_->owner != self_ && Clock::now() < claim_->until;
}

std::optional<std::string> EtcdCommitIntent::WaitForOthers() {
  std::unique_lock lock(mutex_);
  const auto limit = Clock::now() + kMaxWait;
  auto others_hold = [&] {
    return claim_ && claim_->owner != self_ && Clock::now() < claim_->until;
  };
  while (others_hold()) {
    const auto until = std::min(limit, claim_->until);
    if (changed_.wait_until(lock, until) == std::cv_status::timeout && Clock::now() >= limit) {
      break;
    }
  }
  if (claim_ && claim_->owner != self_ && Clock::now() >= claim_->until) return claim_value_;
  return std::nullopt;
}

}  // namespace moraine::store
