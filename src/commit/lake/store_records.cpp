#include "commit/lake/store_records.h"

#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

using store::Key;
using store::Kind;

const std::string& HeadKey() {
  static const std::string key = Key::Current(Kind::kHead, {}).Encode();
  return key;
}

std::string EncodeHead(int64_t snapshot_id, uint64_t batch_count,
                       const store::v1::HeadCounters* newest_counters,
                       std::optional<int64_t> inlined_batches_through, KeptSummaries summaries) {
  store::v1::HeadRecord head;
  head.set_snapshot_id(static_cast<uint64_t>(snapshot_id));
  head.set_batch_count(batch_count);
  if (newest_counters) *head.mutable_newest_counters() = *newest_counters;
  if (inlined_batches_through) head.set_inlined_batches_through(*inlined_batches_through);
  if (summaries.inlined_batches) head.set_inlined_batch_summaries(true);
  if (summaries.data_files) head.set_data_file_summaries(true);
  if (summaries.data_file_bounds) head.set_data_file_summary_bounds(true);
  return store::FrameValue(Kind::kHead, head);
}

int64_t DecodeHeadSnapshotId(std::string_view value) {
  store::v1::HeadRecord head;
  store::UnframeValue(Kind::kHead, value, &head);
  return static_cast<int64_t>(head.snapshot_id());
}

uint64_t DecodeHeadBatchCount(std::string_view value) {
  store::v1::HeadRecord head;
  store::UnframeValue(Kind::kHead, value, &head);
  return head.batch_count();
}

const std::string& FormatKey() {
  static const std::string key = Key::Current(Kind::kFormat, {}).Encode();
  return key;
}

std::string EncodeFormat() {
  store::v1::FormatRecord format;
  format.set_format_version(kStoreFormatVersion);
  format.set_written_by(kWrittenBy);
  return store::FrameValue(Kind::kFormat, format);
}

const std::string& NamespaceKey() {
  static const std::string key = Key::Current(Kind::kNamespace, {}).Encode();
  return key;
}

std::string EncodeNamespace(std::string_view name) {
  store::v1::NamespaceRecord record;
  record.set_name(std::string(name));
  return store::FrameValue(Kind::kNamespace, record);
}

std::string DecodeNamespace(std::string_view value) {
  store::v1::NamespaceRecord record;
  store::UnframeValue(Kind::kNamespace, value, &record);
  return record.name();
}

}  // namespace moraine::commit
