// store::Crc32 against zlib's crc32, which it must equal bit for bit: every
// value frame written before it was checked with zlib's.
#include "store/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

namespace moraine::store {
namespace {

uint32_t Zlib(uint32_t crc, std::string_view bytes) {
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

TEST(Crc32Test, CheckValueOfTheGzipPolynomial) {
  EXPECT_EQ(Crc32(0, "123456789"), 0xCBF43926u);
  EXPECT_EQ(Crc32(0, ""), 0u);
  EXPECT_EQ(Crc32(0x12345678, ""), 0x12345678u);
}

// Every length from 0 to past several folds, at every alignment of the
// first byte, from a zero and from a random register, equals zlib's.
TEST(Crc32Test, EqualsZlibAtEveryLengthAndAlignment) {
  std::mt19937_64 random(20261206);
  std::string bytes(1200, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random());
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t length = 0; length + offset <= bytes.size(); ++length) {
      const std::string_view piece(bytes.data() + offset, length);
      const auto start = static_cast<uint32_t>(random());
      ASSERT_EQ(Crc32(0, piece), Zlib(0, piece)) << "offset " << offset << " length " << length;
      ASSERT_EQ(Crc32(start, piece), Zlib(start, piece))
          << "offset " << offset << " length " << length;
    }
  }
}

TEST(Crc32Test, ContinuesAcrossPieces) {
  std::mt19937_64 random(7);
  std::string bytes(1 << 20, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random());
  const std::string_view all(bytes);
  const uint32_t whole = Crc32(0, all);
  EXPECT_EQ(whole, Zlib(0, all));
  for (size_t cut : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, all.size() - 5}) {
    EXPECT_EQ(Crc32(Crc32(0, all.substr(0, cut)), all.substr(cut)), whole) << "cut " << cut;
  }
}

TEST(Crc32Test, DiffersWhenAnyBitFlips) {
  std::string bytes(256, 'm');
  const uint32_t clean = Crc32(0, bytes);
  for (size_t bit = 0; bit < bytes.size() * 8; bit += 7) {
    std::string flipped = bytes;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    EXPECT_NE(Crc32(0, flipped), clean) << "bit " << bit;
  }
}

}  // namespace
}  // namespace moraine::store
