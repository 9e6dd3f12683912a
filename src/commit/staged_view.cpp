#include "commit/staged_view.h"

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

void StagedView::AppendTo(store::WriteBatch* batch) const {
  for (const auto& [key, value] : writes_) {
    if (value) {
      batch->Put(key, *value);
    } else {
      batch->Delete(key);
    }
  }
}

}  // namespace moraine::commit
