#include "store/crc32.h"

#include <immintrin.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

namespace moraine::store {
namespace {

uint32_t ZlibCrc32(uint32_t crc, std::string_view bytes) {
  uLong value = crc;
  while (!bytes.empty()) {  // zlib takes a uInt length
    const size_t chunk = std::min<size_t>(bytes.size(), std::numeric_limits<uInt>::max());
    value = crc32(value, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(chunk));
    bytes.remove_prefix(chunk);
  }
  return static_cast<uint32_t>(value);
}

// The folding below is the one Intel's white paper "Fast CRC Computation
// for Generic Polynomials Using PCLMULQDQ Instruction" (2009) describes, for
// the bit-reflected gzip polynomial: each constant is x^n mod P for the
// distance n it moves 64 bits forward, reflected.
#define MORAINE_CRC_TARGET __attribute__((target("pclmul,sse2")))

MORAINE_CRC_TARGET inline __m128i Load(const char* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// x's low half times k's low half, xor x's high half times k's high half:
// x moved forward by the distance k's two constants stand for.
MORAINE_CRC_TARGET inline __m128i Fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// The CRC register `raw` (not inverted) continued over `length` bytes, a
// multiple of 16 and at least 64.
MORAINE_CRC_TARGET uint32_t FoldedCrc32(uint32_t raw, const char* data, size_t length) {
  __m128i x1 = _mm_xor_si128(Load(data), _mm_cvtsi32_si128(static_cast<int>(raw)));
  __m128i x2 = Load(data + 16), x3 = Load(data + 32), x4 = Load(data + 48);
  data += 64;
  length -= 64;
  // Four lanes, each moved forward 512 bits per 64 bytes read.
  const __m128i by_512 = _mm_set_epi64x(0x00000001c6e41596, 0x0000000154442bd4);
  for (; length >= 64; data += 64, length -= 64) {
    x1 = _mm_xor_si128(Fold(x1, by_512), Load(data));
    x2 = _mm_xor_si128(Fold(x2, by_512), Load(data + 16));
    x3 = _mm_xor_si128(Fold(x3, by_512), Load(data + 32));
    x4 = _mm_xor_si128(Fold(x4, by_512), Load(data + 48));
  }
  // The lanes into one, then the rest 128 bits at a time.
  const __m128i by_128 = _mm_set_epi64x(0x00000000ccaa009e, 0x00000001751997d0);
  x1 = _mm_xor_si128(Fold(x1, by_128), x2);
  x1 = _mm_xor_si128(Fold(x1, by_128), x3);
  x1 = _mm_xor_si128(Fold(x1, by_128), x4);
  for (; length >= 16; data += 16, length -= 16) {
    x1 = _mm_xor_si128(Fold(x1, by_128), Load(data));
  }
  // 128 bits to 64 (appending the 32 zero bits a CRC is defined with), to 32.
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(by_128, x1, 0x01), _mm_srli_si128(x1, 8));
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  const __m128i by_64 = _mm_set_epi64x(0, 0x0000000163cd6124);
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), by_64, 0x00),
                     _mm_srli_si128(x1, 4));
  // Barrett reduction modulo P: the quotient by mu = x^64 / P (high half of
  // `barrett`), times P (its low half), subtracted.
  const __m128i barrett = _mm_set_epi64x(0x00000001f7011641, 0x00000001db710641);
  __m128i quotient = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), barrett, 0x10);
  quotient = _mm_clmulepi64_si128(_mm_and_si128(quotient, low32), barrett, 0x00);
  x1 = _mm_xor_si128(x1, quotient);
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(x1, 4)));
}

#undef MORAINE_CRC_TARGET

}  // namespace

uint32_t Crc32(uint32_t crc, std::string_view bytes) {
  static const bool folds = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
  if (!folds || bytes.size() < 64) return ZlibCrc32(crc, bytes);
  const size_t folded = bytes.size() & ~size_t{15};
  const uint32_t raw = FoldedCrc32(~crc, bytes.data(), folded);
  return ZlibCrc32(~raw, bytes.substr(folded));
}

}  // namespace moraine::store
