#pragma once

// The greatest key of a range as a snapshot with writes laid over it sees it:
// one algorithm for every view that lays writes over a snapshot (the
// store's OverlaidSnapshot, the commit layer's StagedView).
//
// Thread-safety: a function of its arguments; `base` must be safe to read.

#include <algorithm>
#include <optional>
#include <string>

#include "store/key_range.h"
#include "store/kv_store.h"

namespace moraine::store {

// The greatest key in `range` among `writes`' puts and `base`'s keys that no
// delete of `writes` hides, nullopt if none. `writes`: an ordered map from a
// key to its value, nullopt for a delete. A seek from the end of `base` per
// hidden key it meets, never a walk over the range.
template <class Writes>
std::optional<std::string> LastKeyOverWrites(const KvSnapshot& base, const Writes& writes,
                                             const KeyRange& range) {
  std::optional<std::string> put;
  auto at = range.end.empty() ? writes.end() : writes.lower_bound(range.end);
  while (at != writes.begin()) {
    --at;
    if (at->first < range.begin) break;
    if (at->second) {
      put = at->first;
      break;
    }
  }
  KeyRange rest = range;
  std::optional<std::string> stored;
  while ((stored = base.LastKeyIn(rest))) {
    const auto write = writes.find(*stored);
    if (write == writes.end() || write->second) break;
    rest.end = *stored;  // deleted over it: look below it
  }
  if (!stored) return put;
  if (!put) return stored;
  return std::max(*stored, *put);
}

}  // namespace moraine::store
