#include "tools/tag_table.h"

#include "commit/tags/protected_tag.h"
#include "tools/iso_time.h"

namespace moraine::tools {

ToolTable ProtectedTagTable(const store::KvSnapshot& snapshot, bool include_ended) {
  ToolTable table;
  table.columns = {
      {"name", ToolType::kVarchar},           {"snapshot_id", ToolType::kBigint},
      {"created", ToolType::kVarchar},        {"author", ToolType::kVarchar},
      {"created_at_head", ToolType::kBigint}, {"removed", ToolType::kVarchar},
      {"removed_at_head", ToolType::kBigint}, {"holds_files_after_batch", ToolType::kBigint}};
  for (auto it = snapshot.Scan(commit::tags::ProtectedTagRange()); it->Valid(); it->Next()) {
    const auto tag = commit::tags::DecodeProtectedTag(it->value());
    if (tag.ended() && !include_ended) continue;
    table.rows.push_back(
        {tag.name, tag.snapshot_id, IsoTime(tag.created_micros),
         CellOf(tag.author.has_value(), tag.author.value_or("")), tag.created_at_head,
         tag.removed_micros ? ToolCell(IsoTime(*tag.removed_micros)) : ToolCell(std::monostate{}),
         CellOf(tag.removed_at_head.has_value(), tag.removed_at_head.value_or(0)),
         CellOf(tag.holds_files_after_batch.has_value(), tag.holds_files_after_batch.value_or(0))});
  }
  return table;
}

}  // namespace moraine::tools
