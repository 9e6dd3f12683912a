#include "commit/tags/protected_tag.h"

#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "util/wall_clock.h"

namespace moraine::commit::tags {

using store::Kind;

ProtectedTag ProtectedTag::EndedAt(int64_t head) const {
  ProtectedTag ended = *this;
  ended.removed_micros = util::NowMicros();
  ended.removed_at_head = head;
  return ended;
}

std::string ProtectedTagKey(uint64_t tag_id) {
  return store::Key::Current(Kind::kProtectedTag, {tag_id}).Encode();
}

store::KeyRange ProtectedTagRange() {
  return store::PrefixRange(store::Subspace::kSystem, Kind::kProtectedTag);
}

std::string EncodeProtectedTag(const ProtectedTag& tag) {
  store::v1::ProtectedTagRecord record;
  record.set_tag_id(tag.tag_id);
  record.set_name(tag.name);
  record.set_snapshot_id(tag.snapshot_id);
  record.set_created_micros(tag.created_micros);
  if (tag.author) record.set_author(*tag.author);
  record.set_created_at_head(tag.created_at_head);
  if (tag.removed_micros) record.set_removed_micros(*tag.removed_micros);
  if (tag.removed_at_head) record.set_removed_at_head(*tag.removed_at_head);
  if (tag.holds_files_after_batch) record.set_holds_files_after_batch(*tag.holds_files_after_batch);
  return store::FrameValue(Kind::kProtectedTag, record);
}

ProtectedTag DecodeProtectedTag(std::string_view value) {
  store::v1::ProtectedTagRecord record;
  store::UnframeValue(Kind::kProtectedTag, value, &record);
  ProtectedTag tag;
  tag.tag_id = record.tag_id();
  tag.name = record.name();
  tag.snapshot_id = record.snapshot_id();
  tag.created_micros = record.created_micros();
  if (record.has_author()) tag.author = record.author();
  tag.created_at_head = record.created_at_head();
  if (record.has_removed_micros()) tag.removed_micros = record.removed_micros();
  if (record.has_removed_at_head()) tag.removed_at_head = record.removed_at_head();
  if (record.has_holds_files_after_batch()) {
    tag.holds_files_after_batch = record.holds_files_after_batch();
  }
  return tag;
}

std::optional<std::string> InvalidTagNameReason(std::string_view name) {
  constexpr size_t kMaxTagName = 128;
  if (name.empty()) return "a tag name cannot be empty";
  if (name.size() > kMaxTagName) {
    return "a tag name is at most " + std::to_string(kMaxTagName) + " bytes; this one has " +
           std::to_string(name.size());
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7F) return "a tag name cannot hold control characters";
  }
  return std::nullopt;
}

}  // namespace moraine::commit::tags
