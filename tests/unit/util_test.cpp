// The helpers of src/util: big-endian coding, UUIDs, strings, temp dirs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "util/big_endian.h"
#include "util/strings.h"
#include "util/temp_dir.h"
#include "util/uuid.h"

namespace moraine::util {
namespace {

TEST(BigEndian, RoundTripsAndOrdersAsBytes) {
  std::string out;
  AppendBigEndian64(&out, 0x0102030405060708ull);
  AppendBigEndian32(&out, 0x0a0b0c0du);
  EXPECT_EQ(out, std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d", 12));
  EXPECT_EQ(ReadBigEndian64(out.data()), 0x0102030405060708ull);
  EXPECT_EQ(ReadBigEndian32(out.data() + 8), 0x0a0b0c0du);
  std::string low, high;
  AppendBigEndian64(&low, 255);
  AppendBigEndian64(&high, 256);
  EXPECT_LT(low, high);
}

TEST(Uuid, IsVersionFourInCanonicalForm) {
  const std::regex canonical("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const std::string uuid = NewUuid();
  EXPECT_TRUE(std::regex_match(uuid, canonical)) << uuid;
  EXPECT_NE(uuid, NewUuid());
}

TEST(Strings, LowerTrimSplitJoin) {
  EXPECT_EQ(Lower("ReadOnly 1"), "readonly 1");
  EXPECT_EQ(Trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(Trim(" \n "), "");
  EXPECT_EQ(Split("a,,b", ","), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Split("", ","), (std::vector<std::string>{""}));
  EXPECT_EQ(Split("x && y", "&&"), (std::vector<std::string>{"x ", " y"}));
  EXPECT_EQ(Join({"a", "b", "c"}, " | "), "a | b | c");
  EXPECT_EQ(Join({}, ","), "");
  EXPECT_EQ(SqlQuoted("it's", '\''), "'it''s'");
  EXPECT_EQ(SqlQuoted("a \"b\"", '"'), "\"a \"\"b\"\"\"");
  EXPECT_EQ(SqlQuoted("", '\''), "''");
}

TEST(TempDir, IsFreshAndRemovedWithItsContents) {
  std::filesystem::path root;
  {
    const TempDir dir("moraine-util-test-");
    root = dir.root();
    EXPECT_TRUE(std::filesystem::is_directory(root));
    EXPECT_TRUE(std::filesystem::is_empty(root));
    EXPECT_NE(root, TempDir("moraine-util-test-").root());
    std::ofstream(dir.path("file")) << "x";
  }
  EXPECT_FALSE(std::filesystem::exists(root));
}

}  // namespace
}  // namespace moraine::util
