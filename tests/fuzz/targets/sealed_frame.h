// Frames raw payload bytes with a valid header and checksum, as
// store/value_frame.h specifies the frame. The value-frame target uses it to
// get past the checksum, and the row-mapping target to reach the payload
// parser and the row mapping with arbitrary payloads: a fuzzer seldom guesses
// a CRC32 on its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace moraine::fuzz {

// "MRNE" · version · kind · CRC32(version, kind, payload) big-endian · payload.
std::string SealFrame(uint8_t version, uint8_t kind, std::string_view payload);

}  // namespace moraine::fuzz
