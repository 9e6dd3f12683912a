#include "commit/rows/snapshot_presence.h"

#include "store/error.h"
#include "store/payload_fields.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

bool SnapshotRecordHoldsRow(std::string_view value, bool changes_row) {
  const std::string_view payload = store::UnframePayload(store::Kind::kSnapshot, value);
  const int flag_field = changes_row ? store::v1::SnapshotRecord::kChangesRowAbsentFieldNumber
                                     : store::v1::SnapshotRecord::kSnapshotRowAbsentFieldNumber;
  bool absent = false;  // proto3 default; the last occurrence of a field wins
  const bool parsed =
      store::ForEachPayloadField(payload, [&](int number, auto wire_type, auto& input) {
        if (number != flag_field || wire_type != store::PayloadWireFormat::WIRETYPE_VARINT) {
          return store::FieldRead::kSkip;
        }
        uint64_t flag = 0;
        if (!input.ReadVarint64(&flag)) return store::FieldRead::kFailed;
        absent = flag != 0;
        return store::FieldRead::kRead;
      });
  if (!parsed) throw store::CorruptionError("a snapshot record's payload is malformed");
  return !absent;
}

}  // namespace moraine::commit
