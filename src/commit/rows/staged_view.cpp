#include "commit/rows/staged_view.h"

#include <algorithm>

namespace moraine::commit {

std::optional<std::string> StagedView::Get(const std::string& key) const {
  if (auto staged = writes_.find(key); staged != writes_.end()) return staged->second;
  return snapshot_->Get(key);
}

void StagedView::Scan(
    const store::KeyRange& range,
    const std::function<void(std::string_view key, std::string_view value)>& visit) const {
  auto stored = snapshot_->Scan(range);
  auto staged = writes_.lower_bound(range.begin);
  const auto staged_in_range = [&] {
    return staged != writes_.end() && (range.end.empty() || staged->first < range.end);
  };
  // Merge the two ordered streams; on equal keys the staged write wins.
  while (stored->Valid() || staged_in_range()) {
    const bool take_staged =
        staged_in_range() && (!stored->Valid() || std::string_view(staged->first) <= stored->key());
    if (take_staged) {
      if (stored->Valid() && std::string_view(staged->first) == stored->key()) stored->Next();
      if (staged->second) visit(staged->first, *staged->second);
      ++staged;
    } else {
      visit(stored->key(), stored->value());
      stored->Next();
    }
  }
}

std::optional<std::string> StagedView::LastKeyIn(const store::KeyRange& range) const {
  // The greatest staged put in range.
  std::optional<std::string> staged;
  auto at = range.end.empty() ? writes_.end() : writes_.lower_bound(range.end);
  while (at != writes_.begin()) {
    --at;
    if (at->first < range.begin) break;
    if (at->second) {
      staged = at->first;
      break;
    }
  }
  // The greatest stored key in range that no staged delete hides.
  store::KeyRange rest = range;
  std::optional<std::string> stored;
  while ((stored = snapshot_->LastKeyIn(rest))) {
    auto write = writes_.find(*stored);
    if (write == writes_.end() || write->second) break;
    rest.end = *stored;  // deleted here: look below it
  }
  if (!stored) return staged;
  if (!staged) return stored;
  return std::max(*stored, *staged);
}

void StagedView::AppendTo(store::WriteBatch* batch) const {
  for (const auto& [key, value] : writes_) {
    if (value) {
      batch->Put(key, *value);
    } else {
      batch->Delete(key);
    }
  }
}

void StagedView::VisitStagedPuts(const store::KeyRange& range,
                                 const std::function<void(std::string_view key)>& visit) const {
  VisitStagedWrites(range, [&](std::string_view key, const std::optional<std::string>& value) {
    if (value) visit(key);
  });
}

void StagedView::VisitStagedWrites(
    const store::KeyRange& range,
    const std::function<void(std::string_view key, const std::optional<std::string>& value)>& visit)
    const {
  for (auto it = writes_.lower_bound(range.begin);
       it != writes_.end() && (range.end.empty() || it->first < range.end); ++it) {
    visit(it->first, it->second);
  }
}

bool StagedView::StagesAnyIn(const store::KeyRange& range) const {
  const auto it = writes_.lower_bound(range.begin);
  return it != writes_.end() && (range.end.empty() || it->first < range.end);
}

}  // namespace moraine::commit
