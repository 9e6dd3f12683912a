#include "commit/snapshot_presence.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "store/error.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

using google::protobuf::internal::WireFormatLite;

bool SnapshotRecordHoldsRow(std::string_view value, bool changes_row) {
  const std::string_view payload = store::UnframePayload(store::Kind::kSnapshot, value);
  const int flag_field = changes_row ? store::v1::SnapshotRecord::kChangesRowAbsentFieldNumber
                                     : store::v1::SnapshotRecord::kSnapshotRowAbsentFieldNumber;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(payload.data()),
                                               static_cast<int>(payload.size()));
  bool absent = false;  // proto3 default; the last occurrence of a field wins
  while (const uint32_t tag = input.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == flag_field &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t flag = 0;
      if (!input.ReadVarint64(&flag)) break;
      absent = flag != 0;
    } else if (!WireFormatLite::SkipField(&input, tag)) {
      throw store::CorruptionError("a snapshot record's payload is malformed");
    }
  }
  if (!input.ConsumedEntireMessage()) {
    throw store::CorruptionError("a snapshot record's payload is malformed");
  }
  return !absent;
}

}  // namespace moraine::commit
