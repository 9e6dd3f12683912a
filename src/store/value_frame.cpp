#include "store/value_frame.h"

#include <google/protobuf/message_lite.h>

#include <limits>

#include "store/crc32.h"
#include "store/error.h"
#include "util/big_endian.h"

namespace moraine::store {
namespace {

// The checksum covers the codec version and kind bytes as well as the
// payload: a flipped kind byte must not turn one record into a valid record
// of another kind (e.g. format 0x01 into head 0x02).
uint32_t FrameChecksum(uint8_t version, uint8_t kind, std::string_view payload) {
  const char header[2] = {static_cast<char>(version), static_cast<char>(kind)};
  return Crc32(Crc32(0, std::string_view(header, sizeof(header))), payload);
}

std::string KindLabel(uint8_t kind_byte) {
  const KindInfo* info = FindKindInfo(kind_byte);
  return info ? std::string(info->name) : "unknown kind " + std::to_string(kind_byte);
}

}  // namespace

std::string FrameValue(Kind kind, const google::protobuf::MessageLite& record) {
  std::string payload;
  if (!record.SerializeToString(&payload)) {
    throw InvalidArgumentError("cannot serialize " + KindLabel(static_cast<uint8_t>(kind)) +
                               " record");
  }
  std::string out;
  out.reserve(kValueHeaderSize + payload.size());
  out.append(kValueMagic);
  out.push_back(static_cast<char>(kValueCodecVersion));
  out.push_back(static_cast<char>(kind));
  util::AppendBigEndian32(&out,
                          FrameChecksum(kValueCodecVersion, static_cast<uint8_t>(kind), payload));
  out.append(payload);
  return out;
}

namespace {

// Every decoding failure says first that the store holds a damaged value, so
// that a user who meets it deep inside a DuckLake query knows what it is.
[[noreturn]] void CorruptValue(const std::string& detail) {
  throw CorruptionError("corruption in the moraine store: " + detail);
}

}  // namespace

std::string_view UnframePayload(Kind expected, std::string_view bytes) {
  // The label is built only for an error: a scan unframes every record it reads.
  const auto expected_label = [expected] { return KindLabel(static_cast<uint8_t>(expected)); };
  if (bytes.size() < kValueHeaderSize) {
    CorruptValue(expected_label() + " value of " + std::to_string(bytes.size()) +
                 " bytes is shorter than the frame header");
  }
  if (bytes.substr(0, kValueMagic.size()) != kValueMagic) {
    CorruptValue(expected_label() + " value does not start with the frame magic");
  }
  const auto version = static_cast<uint8_t>(bytes[4]);
  if (version == 0) {
    CorruptValue(expected_label() + " value has codec version 0");
  }
  if (version > kValueCodecVersion) {
    throw UnsupportedVersionError(expected_label() + " value has codec version " +
                                  std::to_string(version) + "; this build reads up to " +
                                  std::to_string(kValueCodecVersion));
  }
  const auto kind_byte = static_cast<uint8_t>(bytes[5]);
  if (kind_byte != static_cast<uint8_t>(expected)) {
    CorruptValue("expected a " + expected_label() + " value, found " + KindLabel(kind_byte));
  }
  const uint32_t stored_crc = util::ReadBigEndian32(bytes.data() + 6);
  std::string_view payload = bytes.substr(kValueHeaderSize);
  if (FrameChecksum(version, kind_byte, payload) != stored_crc) {
    CorruptValue(expected_label() + " value fails its checksum");
  }
  return payload;
}

void UnframeValue(Kind expected, std::string_view bytes, google::protobuf::MessageLite* out) {
  std::string_view payload = UnframePayload(expected, bytes);
  if (payload.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !out->ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    ThrowUnparsablePayload(expected, out->GetTypeName());
  }
}

void ThrowUnparsablePayload(Kind kind, std::string_view record_type) {
  CorruptValue(KindLabel(static_cast<uint8_t>(kind)) + " value payload is not a valid " +
               std::string(record_type));
}

}  // namespace moraine::store
