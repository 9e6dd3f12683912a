#include "commit/rows/staged_view.h"

#include "store/last_key_over_writes.h"

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
  return store::LastKeyOverWrites(*snapshot_, writes_, range);
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
