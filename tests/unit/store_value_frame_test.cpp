// Value framing: every way a stored value can be wrong is a typed error.

#include <gtest/gtest.h>

#include "store/error.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

#include <zlib.h>

namespace moraine::store {
namespace {

namespace v1 = moraine::store::v1;

v1::ColumnRecord SampleColumn() {
  v1::ColumnRecord column;
  column.set_column_id(3);
  column.set_table_id(7);
  column.set_begin_snapshot(2);
  column.set_column_order(1);
  column.set_column_name("status");
  column.set_column_type("varchar");
  column.set_default_value("'new'");
  column.set_nulls_allowed(true);
  column.set_parent_column(1);
  return column;
}

TEST(StoreValueFrame, HeaderLayout) {
  const std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  ASSERT_GT(framed.size(), kValueHeaderSize);
  EXPECT_EQ(framed.substr(0, 4), "MRNE");
  EXPECT_EQ(static_cast<uint8_t>(framed[4]), 1);
  EXPECT_EQ(static_cast<uint8_t>(framed[5]), static_cast<uint8_t>(Kind::kColumn));
  EXPECT_EQ(framed.substr(kValueHeaderSize), SampleColumn().SerializeAsString());
}

TEST(StoreValueFrame, Roundtrip) {
  const v1::ColumnRecord column = SampleColumn();
  v1::ColumnRecord decoded;
  UnframeValue(Kind::kColumn, FrameValue(Kind::kColumn, column), &decoded);
  EXPECT_EQ(decoded.SerializeAsString(), column.SerializeAsString());
  EXPECT_TRUE(decoded.has_default_value());
  EXPECT_FALSE(decoded.has_initial_default());  // NULL stays NULL
  EXPECT_FALSE(decoded.has_end_snapshot());
}

TEST(StoreValueFrame, EmptyMessageRoundtrips) {
  v1::HeadRecord head;
  v1::HeadRecord decoded;
  decoded.set_snapshot_id(99);
  UnframeValue(Kind::kHead, FrameValue(Kind::kHead, head), &decoded);
  EXPECT_EQ(decoded.snapshot_id(), 0u);
}

TEST(StoreValueFrame, RejectsBadMagic) {
  std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  framed[0] = 'X';
  v1::ColumnRecord out;
  EXPECT_THROW(UnframeValue(Kind::kColumn, framed, &out), CorruptionError);
}

TEST(StoreValueFrame, RejectsTruncation) {
  const std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  v1::ColumnRecord out;
  for (size_t size = 0; size < framed.size(); ++size) {
    EXPECT_THROW(UnframeValue(Kind::kColumn, std::string_view(framed).substr(0, size), &out),
                 CorruptionError)
        << "truncated to " << size;
  }
}

TEST(StoreValueFrame, RejectsUnknownCodecVersion) {
  std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  framed[4] = 2;
  v1::ColumnRecord out;
  EXPECT_THROW(UnframeValue(Kind::kColumn, framed, &out), UnsupportedVersionError);
  framed[4] = 0;
  EXPECT_THROW(UnframeValue(Kind::kColumn, framed, &out), CorruptionError);
}

TEST(StoreValueFrame, RejectsWrongKind) {
  const std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  v1::TableRecord table;
  EXPECT_THROW(UnframeValue(Kind::kTable, framed, &table), CorruptionError);
}

TEST(StoreValueFrame, RejectsEveryFlippedPayloadByte) {
  const std::string framed = FrameValue(Kind::kColumn, SampleColumn());
  v1::ColumnRecord out;
  for (size_t i = kValueHeaderSize; i < framed.size(); ++i) {
    std::string flipped = framed;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    EXPECT_THROW(UnframeValue(Kind::kColumn, flipped, &out), CorruptionError) << "byte " << i;
  }
  std::string bad_crc = framed;
  bad_crc[7] = static_cast<char>(bad_crc[7] ^ 0x80);
  EXPECT_THROW(UnframeValue(Kind::kColumn, bad_crc, &out), CorruptionError);
}

TEST(StoreValueFrame, RejectsGarbagePayloadWithValidChecksum) {
  // A correctly framed and checksummed payload that is not a protobuf
  // message: the frame passes, the parse must not.
  const std::string payload("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11);
  const Bytef header[2] = {1, static_cast<Bytef>(Kind::kColumn)};
  const auto crc = static_cast<uint32_t>(crc32(crc32(crc32(0L, Z_NULL, 0), header, 2),
                                               reinterpret_cast<const Bytef*>(payload.data()),
                                               static_cast<uInt>(payload.size())));
  std::string framed = "MRNE";
  framed.push_back(1);
  framed.push_back(static_cast<char>(Kind::kColumn));
  for (int shift = 24; shift >= 0; shift -= 8) framed.push_back(static_cast<char>(crc >> shift));
  framed += payload;
  EXPECT_EQ(UnframePayload(Kind::kColumn, framed), payload);
  v1::ColumnRecord out;
  EXPECT_THROW(UnframeValue(Kind::kColumn, framed, &out), CorruptionError);
}

// Regression: the checksum once covered only the payload, so flipping the kind
// byte of a format value (0x01) to head (0x02) read back as a valid head record.
TEST(StoreValueFrame, AFlippedKindByteFailsTheChecksum) {
  v1::FormatRecord format;
  format.set_format_version(7);
  std::string framed = FrameValue(Kind::kFormat, format);
  framed[5] = static_cast<char>(Kind::kHead);
  v1::HeadRecord head;
  EXPECT_THROW(UnframeValue(Kind::kHead, framed, &head), CorruptionError);
}

}  // namespace
}  // namespace moraine::store
