#include "commit/revert/revert_mark.h"

#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit::revert {

using store::Kind;

std::string RevertMarkKey(int64_t snapshot_id) {
  return store::Key::Current(Kind::kRevertMark, {static_cast<uint64_t>(snapshot_id)}).Encode();
}

store::KeyRange RevertMarkRange() {
  return store::PrefixRange(store::Subspace::kSystem, Kind::kRevertMark);
}

std::string EncodeRevertMark(const RevertMark& mark) {
  store::v1::RevertMarkRecord record;
  record.set_snapshot_id(mark.snapshot_id);
  record.set_as_of_snapshot(mark.as_of_snapshot);
  if (mark.table_id) record.set_table_id(*mark.table_id);
  for (const RevivedFile& file : mark.revived_files) {
    auto* revived = record.add_revived_files();
    revived->set_old_file_id(file.old_file_id);
    revived->set_new_file_id(file.new_file_id);
    revived->set_table_id(file.table_id);
    revived->set_delete_file(file.delete_file);
  }
  return store::FrameValue(Kind::kRevertMark, record);
}

RevertMark DecodeRevertMark(std::string_view value) {
  store::v1::RevertMarkRecord record;
  store::UnframeValue(Kind::kRevertMark, value, &record);
  RevertMark mark;
  mark.snapshot_id = record.snapshot_id();
  mark.as_of_snapshot = record.as_of_snapshot();
  if (record.has_table_id()) mark.table_id = record.table_id();
  for (const auto& revived : record.revived_files()) {
    mark.revived_files.push_back(
        {revived.old_file_id(), revived.new_file_id(), revived.table_id(), revived.delete_file()});
  }
  return mark;
}

}  // namespace moraine::commit::revert
