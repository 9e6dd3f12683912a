#include "commit/rows/storage/staged_records.h"

#include <algorithm>

#include "commit/rows/inlined_tables.h"
#include "store/value_frame.h"

namespace moraine::commit {

std::unique_ptr<google::protobuf::Message> StagedRecords::Read(const catalog::RowMapping& mapping,
                                                               const std::string& key) const {
  auto value = view_.Get(key);
  if (!value) return nullptr;
  auto record = mapping.NewRecord();
  store::UnframeValue(mapping.kind(), *value, record.get());
  return record;
}

void StagedRecords::Stage(const catalog::RowMapping& mapping, const std::string& key,
                          const google::protobuf::Message& record) {
  view_.Put(key, store::FrameValue(mapping.kind(), record));
}

OpenContainer& StagedRecords::Open(const catalog::RowMapping& mapping, const std::string& key) {
  auto found = containers_.find(key);
  if (found == containers_.end()) {
    found = containers_.emplace(key, OpenContainer{&mapping, Read(mapping, key)}).first;
  }
  return found->second;
}

inlined::InlinedRowBatch& StagedRecords::OpenBatch(const std::string& key, size_t user_columns) {
  auto found = batches_.find(key);
  if (found == batches_.end()) {
    const bool known_absent = inlined_batches_through_ && !view_.Stages(key) &&
                              inlined::BatchBeginSnapshot(key) > *inlined_batches_through_;
    const auto value = known_absent ? std::nullopt : view_.Get(key);
    found =
        batches_
            .emplace(key,
                     OpenBatchEntry{value ? inlined::InlinedRowBatch::Decode(*value, user_columns)
                                          : inlined::InlinedRowBatch(user_columns)})
            .first;
  }
  return found->second.batch;
}

void StagedRecords::DiscardBatches(const store::KeyRange& range) {
  std::erase_if(batches_, [&](const auto& entry) { return range.Contains(entry.first); });
}

void StagedRecords::FlushContainers() {
  for (auto& [key, open] : batches_) {
    if (!open.dirty) continue;
    open.dirty = false;
    if (open.batch.empty()) {
      view_.Delete(key);
    } else {
      view_.Put(key, open.batch.Encode());
    }
  }
  for (auto& [key, open] : containers_) {
    if (!open.dirty) continue;
    open.dirty = false;
    if (!open.record || open.mapping->EntryCount(*open.record) == 0) {
      view_.Delete(key);
    } else {
      Stage(*open.mapping, key, *open.record);
    }
  }
}

void StagedRecords::NoteInsertedSnapshot(int64_t snapshot_id) {
  max_inserted_snapshot_ = std::max(max_inserted_snapshot_.value_or(snapshot_id), snapshot_id);
}

}  // namespace moraine::commit
