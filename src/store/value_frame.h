#pragma once

// Value framing (RFC 0002, docs/design/rfc-0002-keyspace-and-value-framing.md):
// every stored value is
//
//   "MRNE" · codec version (1 byte) · kind (1 byte) · CRC32 (4 bytes, BE) · payload
//
// where the payload is the protobuf message of that kind (records.proto) and
// the CRC32 covers the version and kind bytes and the payload.
// The kind byte stops a value from being read as another kind's message, and
// the checksum catches a flipped byte on any backend, not only on RocksDB's
// checksummed blocks. Unframing never crashes and never returns a partial
// decode: it parses fully or throws a typed error.

#include <cstdint>
#include <string>
#include <string_view>

#include "store/key_kind.h"

namespace google::protobuf {
class MessageLite;
}

namespace moraine::store {

inline constexpr std::string_view kValueMagic = "MRNE";
inline constexpr uint8_t kValueCodecVersion = 1;
inline constexpr size_t kValueHeaderSize = 4 + 1 + 1 + 4;

// Serializes `record` behind the frame header for `kind`.
std::string FrameValue(Kind kind, const google::protobuf::MessageLite& record);

// Checks the frame of `bytes` and parses its payload into `out`.
// Throws CorruptionError on a bad magic, truncation, a kind other than
// `expected`, a checksum mismatch or an unparsable payload, and
// UnsupportedVersionError on a codec version this build does not know.
void UnframeValue(Kind expected, std::string_view bytes, google::protobuf::MessageLite* out);

// Checks the frame without parsing and returns the payload (a view into `bytes`).
std::string_view UnframePayload(Kind expected, std::string_view bytes);

// Throws the CorruptionError UnframeValue throws for a payload of `kind` that
// does not parse as `record_type` (for readers that decode payloads themselves).
[[noreturn]] void ThrowUnparsablePayload(Kind kind, std::string_view record_type);

}  // namespace moraine::store
