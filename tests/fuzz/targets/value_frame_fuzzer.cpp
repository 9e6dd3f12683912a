// Fuzzes the value-frame decoder (store/value_frame.h).
//
// Input: a selector byte, then the value. The selector's low bits name the
// kind the caller expects (an index into kKindTable). With its high bit set
// the rest is (version byte, kind byte, payload) and the harness seals it
// with a valid checksum, so the version and kind checks and the payload
// parser are reached as often as the checksum check.
//
// Properties: unframing succeeds or throws store::Error; a frame that
// unframes is exactly its header and payload (re-framing gives the same
// bytes); it unframes as no other kind; a parsed record re-frames to a fixed
// point, and to the input itself when its payload was canonical.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "fuzz_contract.h"
#include "quiet_protobuf.h"
#include "sealed_frame.h"
#include "store/key_kind.h"
#include "store/record_types.h"
#include "store/value_frame.h"

using moraine::fuzz::Decodes;
using moraine::fuzz::Require;
namespace store = moraine::store;

namespace {

void CheckFrameOnly(store::Kind expected, std::string_view value) {
  std::string_view payload;
  if (!Decodes([&] { payload = store::UnframePayload(expected, value); })) return;
  Require(value.size() == store::kValueHeaderSize + payload.size() &&
              value.substr(store::kValueHeaderSize) == payload,
          "the payload is the rest of the value after the header");
  Require(static_cast<uint8_t>(value[4]) == store::kValueCodecVersion,
          "only a known codec version unframes");
  Require(moraine::fuzz::SealFrame(static_cast<uint8_t>(value[4]), static_cast<uint8_t>(value[5]),
                                   payload) == value,
          "a frame that unframes re-frames identically");
  for (const store::KindInfo& other : store::kKindTable) {
    if (other.kind == expected) continue;
    try {
      store::UnframePayload(other.kind, value);
      Require(false, "a value unframes as a second kind");
    } catch (const store::CorruptionError&) {
    }
  }
}

void CheckRecord(store::Kind expected, std::string_view value) {
  auto record = store::NewRecord(expected);
  const bool framed = Decodes([&] { store::UnframePayload(expected, value); });
  const bool parsed = Decodes([&] { store::UnframeValue(expected, value, record.get()); });
  Require(framed || !parsed, "a value with a bad frame parses");
  if (!parsed) return;
  const std::string reframed = store::FrameValue(expected, *record);
  auto again = store::NewRecord(expected);
  store::UnframeValue(expected, reframed, again.get());  // must not throw
  Require(store::FrameValue(expected, *again) == reframed, "re-framing reaches a fixed point");
  const std::string_view payload = value.substr(store::kValueHeaderSize);
  if (record->SerializeAsString() == payload) {
    Require(reframed == value, "a canonical record re-frames to its input");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  moraine::fuzz::QuietProtobuf();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const store::Kind expected = store::kKindTable[(data[0] & 0x3F) % store::kKindTable.size()].kind;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string value(rest);
  if ((data[0] & 0x80) != 0 && rest.size() >= 2) {
    value = moraine::fuzz::SealFrame(static_cast<uint8_t>(rest[0]), static_cast<uint8_t>(rest[1]),
                                     rest.substr(2));
  }
  CheckFrameOnly(expected, value);
  CheckRecord(expected, value);
  return 0;
}
