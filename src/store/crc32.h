// CRC-32 as zlib's crc32 computes it (the gzip polynomial, bit-reflected,
// inverted before and after), the checksum of every value frame
// (store/value_frame.h). Every catalog read verifies one per value, so on a
// processor with carry-less multiplication (PCLMULQDQ) the bulk of a value
// is folded 64 bytes at a time, several times faster than zlib's tables; the
// result is the same bit for bit, and zlib computes it elsewhere and for the
// last bytes. Thread-safe: a pure function.
#pragma once

#include <cstdint>
#include <string_view>

namespace moraine::store {

// zlib's crc32(crc, bytes): continues `crc` (0 to start) over `bytes`.
uint32_t Crc32(uint32_t crc, std::string_view bytes);

}  // namespace moraine::store
