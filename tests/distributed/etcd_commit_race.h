// Writers racing on one head through WriteIfHeadUnchanged, the way catalog
// commits do: read the head (a counter), commit head + 1 with an entry naming
// the winner, retry on a lost race. Shared by the thread and process tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "store/key.h"
#include "store/kv_store.h"

namespace moraine::test {

struct RaceResult {
  std::vector<uint64_t> won;  // head values this writer committed
  uint64_t lost = 0;          // compares it lost
};

inline std::string RaceHeadKey() { return store::Key::Current(store::Kind::kHead, {}).Encode(); }
inline std::string RaceEntryKey(uint64_t n) {
  return store::Key::Current(store::Kind::kTable, {n}).Encode();
}

// Commits until the head reaches `target` or `deadline` passes.
inline RaceResult RaceOnHead(store::KvStore& store, const std::string& writer, uint64_t target,
                             std::chrono::steady_clock::time_point deadline) {
  RaceResult result;
  const std::string head = RaceHeadKey();
  while (std::chrono::steady_clock::now() < deadline) {
    const auto current = store.GetSnapshot()->Get(head);
    const uint64_t n = current ? std::stoull(*current) : 0;
    if (n >= target) break;
    store::WriteBatch batch;
    batch.Put(head, std::to_string(n + 1));
    batch.Put(RaceEntryKey(n + 1), writer);
    if (store.WriteIfHeadUnchanged(head, current, batch)) {
      result.won.push_back(n + 1);
    } else {
      ++result.lost;
    }
  }
  return result;
}

}  // namespace moraine::test
