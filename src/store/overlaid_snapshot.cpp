#include "store/overlaid_snapshot.h"

#include <utility>

#include "store/error.h"
#include "store/last_key_over_writes.h"

namespace moraine::store {

// Merges the base's ascending keys with the overlay's: on a key both hold,
// the overlay's write decides, and an overlay delete hides the key.
class OverlaidSnapshot::MergingIterator final : public KvIterator {
 public:
  MergingIterator(std::unique_ptr<KvIterator> base, Writes::const_iterator overlay,
                  Writes::const_iterator overlay_end)
      : base_(std::move(base)), overlay_(overlay), overlay_end_(overlay_end) {
    Settle();
  }

  bool Valid() const override { return current_ != Source::kNone; }
  void Next() override {
    if (current_ == Source::kOverlay) {
      if (base_->Valid() && base_->key() == overlay_->first) base_->Next();
      ++overlay_;
    } else {
      base_->Next();
    }
    Settle();
  }
  std::string_view key() const override {
    return current_ == Source::kOverlay ? std::string_view(overlay_->first) : base_->key();
  }
  std::string_view value() const override {
    return current_ == Source::kOverlay ? std::string_view(*overlay_->second) : base_->value();
  }

 private:
  enum class Source { kNone, kBase, kOverlay };

  // Points current_ at the smaller of the two streams' keys, passing over
  // the overlay's deletes and the base keys they hide.
  void Settle() {
    while (true) {
      const bool base_valid = base_->Valid();
      const bool overlay_valid = overlay_ != overlay_end_;
      if (!base_valid && !overlay_valid) {
        current_ = Source::kNone;
        return;
      }
      if (!overlay_valid || (base_valid && base_->key() < overlay_->first)) {
        current_ = Source::kBase;
        return;
      }
      if (overlay_->second) {
        current_ = Source::kOverlay;
        return;
      }
      // A delete: it hides the base's key if the base holds it.
      if (base_valid && base_->key() == overlay_->first) base_->Next();
      ++overlay_;
    }
  }

  std::unique_ptr<KvIterator> base_;
  Writes::const_iterator overlay_;
  const Writes::const_iterator overlay_end_;
  Source current_ = Source::kNone;
};

OverlaidSnapshot::OverlaidSnapshot(std::shared_ptr<const KvSnapshot> base,
                                   const WriteBatch& overlay)
    : base_(std::move(base)) {
  if (!base_) throw InvalidArgumentError("an overlaid snapshot needs a snapshot to lie over");
  for (const WriteBatch::Op& op : overlay.ops()) {
    if (op.type == WriteBatch::OpType::kPut) {
      writes_.insert_or_assign(op.key, op.value);
    } else {
      writes_.insert_or_assign(op.key, std::nullopt);
    }
  }
}

std::optional<std::string> OverlaidSnapshot::Get(std::string_view key) const {
  if (auto write = writes_.find(key); write != writes_.end()) return write->second;
  return base_->Get(key);
}

std::unique_ptr<KvIterator> OverlaidSnapshot::Scan(const KeyRange& range) const {
  const auto begin = writes_.lower_bound(range.begin);
  const auto end = range.end.empty() ? writes_.end() : writes_.lower_bound(range.end);
  return std::make_unique<MergingIterator>(base_->Scan(range), begin, end);
}

std::optional<std::string> OverlaidSnapshot::LastKeyIn(const KeyRange& range) const {
  return LastKeyOverWrites(*base_, writes_, range);
}

}  // namespace moraine::store
