#include "commit/lake/conflict_backoff.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>

namespace moraine::commit {

void BackOffAfterConflict(int retries) {
  thread_local std::mt19937 generator{std::random_device{}()};
  const int64_t ceiling_us = std::min<int64_t>(2000, int64_t{10} << std::min(retries, 8));
  std::uniform_int_distribution<int64_t> wait_us(ceiling_us / 2, ceiling_us);
  std::this_thread::sleep_for(std::chrono::microseconds(wait_us(generator)));
}

}  // namespace moraine::commit
