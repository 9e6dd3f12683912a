// The place of DuckLake's last committed snapshot id, confirmed from the
// code of DuckLakeLastCommittedSnapshotBind as two DuckLake builds compiled it
// (different registers, instruction order and frame): each reads the declared
// place, and code that reads any other place is refused.
#include "ducklake_adapter/last_committed_snapshot_read.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace moraine::ducklake_adapter {
namespace {

constexpr LastCommittedSnapshotPlace kDeclared{0x40, 0x388, 0x3b0};

// Machine code kept as hex text in tests/unit/data, as objdump showed it.
std::vector<unsigned char> CodeFrom(const std::string& file) {
  std::ifstream in(std::string(MORAINE_TEST_DATA_DIR) + "/" + file);
  std::vector<unsigned char> code;
  std::string line;
  while (std::getline(in, line)) {
    for (size_t at = 0; at + 1 < line.size(); at += 2) {
      code.push_back(static_cast<unsigned char>(std::stoi(line.substr(at, 2), nullptr, 16)));
    }
  }
  return code;
}

// DuckLake d8a1881e for DuckDB v1.5.5 (DuckDB's registry build): the bind up
// to `cmp $-1,%rsi` after `mov 0x3b0(%r13),%rsi`.
const std::vector<unsigned char> kBind155 =
    CodeFrom("ducklake_d8a1881e_v1_5_5_last_committed_bind.hex");

// DuckLake 5ef9e03d for DuckDB v1.5.6, built by scripts/build_ducklake.sh:
// the same reads through other registers (`lea 0x388(%r13),%rbp`).
const std::vector<unsigned char> kBind156 =
    CodeFrom("ducklake_5ef9e03d_v1_5_6_last_committed_bind.hex");

// The same build's DuckLakeLastCommittedSnapshotFunction constructor, whose
// `lea 0x1d6(%rip),%rdx` at 0x33 names the bind.
const std::vector<unsigned char> kConstructor156 =
    CodeFrom("ducklake_5ef9e03d_v1_5_6_last_committed_constructor.hex");

std::string Check(const std::vector<unsigned char>& bind,
                  const LastCommittedSnapshotPlace& place = kDeclared) {
  return CheckLastCommittedSnapshotRead(bind, place);
}

TEST(LastCommittedSnapshotRead, BothBuildsReadTheDeclaredPlace) {
  ASSERT_EQ(kBind155.size(), 292u);
  ASSERT_EQ(kBind156.size(), 287u);
  EXPECT_EQ(Check(kBind155), "");
  EXPECT_EQ(Check(kBind156), "");
}

TEST(LastCommittedSnapshotRead, AnotherPlaceIsRefusedNamingTheReadItLacks) {
  EXPECT_NE(Check(kBind155, {0x48, 0x388, 0x3b0}).find("does not read the catalog at 0x48"),
            std::string::npos);
  EXPECT_NE(Check(kBind156, {0x40, 0x390, 0x3b0}).find("does not lock the catalog at 0x390"),
            std::string::npos);
  EXPECT_NE(Check(kBind156, {0x40, 0x388, 0x3b8}).find("optional_idx at 0x3b8"), std::string::npos);
}

TEST(LastCommittedSnapshotRead, CodeThatReadsAnotherFieldIsRefused) {
  auto other_field = kBind155;
  ASSERT_EQ(other_field[0x11c], 0xb0);  // mov 0x3b0(%r13),%rsi
  other_field[0x11c] = 0xb8;            // mov 0x3b8(%r13),%rsi
  EXPECT_NE(Check(other_field), "");
  auto other_base = kBind156;
  ASSERT_EQ(other_base[0x112], 0xb5);  // mov 0x3b0(%r13),%rsi: ModRM 10 110 101
  other_base[0x112] = 0xb6;            // mov 0x3b0(%r14),%rsi: another object's field
  EXPECT_NE(Check(other_base), "");
  auto not_compared = kBind156;
  ASSERT_EQ(not_compared[0x11a], 0xff);  // cmp $-1,%rsi
  not_compared[0x11a] = 0x00;            // cmp $0,%rsi: not an optional_idx
  EXPECT_NE(Check(not_compared), "");
}

TEST(LastCommittedSnapshotRead, ATruncatedWindowIsRefusedNotOverread) {
  const std::vector<unsigned char> cut(kBind156.begin(), kBind156.begin() + 0x114);
  EXPECT_NE(Check(cut), "");
  EXPECT_NE(Check({}), "");
}

TEST(LastCommittedSnapshotRead, TheConstructorNamesTheBindInRdx) {
  const auto targets = RdxLeaTargets(kConstructor156);
  ASSERT_EQ(targets.size(), 1u);
  EXPECT_EQ(targets[0], kConstructor156.data() + 0x33 + 7 + 0x1d6);
  EXPECT_TRUE(RdxLeaTargets(std::vector<unsigned char>(6, 0x48)).empty());
}

}  // namespace
}  // namespace moraine::ducklake_adapter
