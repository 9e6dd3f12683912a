#pragma once

// Walking the fields of a serialized record (a value's payload, unframed)
// without parsing it into a message: for readers that need a few fields of
// many records, or one field of one.
//
// Thread-safety: stateless.

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <limits>
#include <string_view>

namespace moraine::store {

using PayloadWireFormat = google::protobuf::internal::WireFormatLite;

// What a field reader did with the field it was shown.
enum class FieldRead {
  kRead,    // it consumed the field's value
  kSkip,    // the walk skips the value
  kFailed,  // the value does not read
};

// Shows `read(number, wire_type, input)` every field of `payload`, in order.
// False when the payload does not parse as a protobuf message would (a
// truncated or malformed field, field number 0) or a reader failed; a field
// of an unexpected wire type is the reader's to skip, as the parser keeps it
// aside as an unknown field.
template <class Read>
bool ForEachPayloadField(std::string_view payload, Read&& read) {
  if (payload.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(payload.data()),
                                               static_cast<int>(payload.size()));
  for (uint32_t tag = input.ReadTag(); tag != 0; tag = input.ReadTag()) {
    const int number = PayloadWireFormat::GetTagFieldNumber(tag);
    if (number == 0) return false;
    switch (read(number, PayloadWireFormat::GetTagWireType(tag), input)) {
      case FieldRead::kRead:
        break;
      case FieldRead::kSkip:
        if (!PayloadWireFormat::SkipField(&input, tag)) return false;
        break;
      case FieldRead::kFailed:
        return false;
    }
  }
  return input.ConsumedEntireMessage();
}

}  // namespace moraine::store
