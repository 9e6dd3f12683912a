// VtableSlotSearch: the inlined reader's hook patches DuckLake's vtable only
// where exactly one address point holds both methods at their slots; these
// words stand in for a module's read-only relocated data, so the refusals
// (no table, two tables, a second slot outside the range) are seen here.
#include "ducklake_adapter/vtable_slot_search.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace moraine::ducklake_adapter {
namespace {

void* Address(uintptr_t value) { return reinterpret_cast<void*>(value); }

constexpr uintptr_t kFirst = 0x1111, kSecond = 0x2222;
constexpr size_t kWord = sizeof(void*);

// A search over `words` for kFirst at slot 5 and kSecond at slot 9.
VtableSlotSearch::Found Search(const std::vector<void*>& words) {
  const auto begin = reinterpret_cast<uintptr_t>(words.data());
  return VtableSlotSearch{.begin = begin,
                          .end = begin + words.size() * kWord,
                          .first_offset = 5 * kWord,
                          .first = Address(kFirst),
                          .second_offset = 9 * kWord,
                          .second = Address(kSecond)}
      .Run();
}

TEST(VtableSlotSearch, FindsTheOneTableThatHoldsBothMethodsAtTheirSlots) {
  std::vector<void*> words(64, Address(0x7));
  words[20 + 5] = Address(kFirst);
  words[20 + 9] = Address(kSecond);
  // The first method alone, elsewhere (another class's table): no match.
  words[40 + 5] = Address(kFirst);
  const auto found = Search(words);
  EXPECT_EQ(found.places, 1u);
  EXPECT_EQ(found.first_slot, &words[25]);
}

TEST(VtableSlotSearch, CountsEveryTableThatMatches) {
  std::vector<void*> words(64, Address(0x7));
  for (size_t point : {3u, 30u}) {
    words[point + 5] = Address(kFirst);
    words[point + 9] = Address(kSecond);
  }
  EXPECT_EQ(Search(words).places, 2u);
}

TEST(VtableSlotSearch, FindsNothingWhereNoTableHoldsBoth) {
  std::vector<void*> words(64, Address(0x7));
  words[10 + 5] = Address(kFirst);
  words[10 + 8] = Address(kSecond);  // the wrong slot
  EXPECT_EQ(Search(words).places, 0u);
  EXPECT_EQ(Search({}).places, 0u);
}

TEST(VtableSlotSearch, ReadsNoWordOutsideTheRange) {
  // The first method in the range's last words, whose second slot would lie
  // past its end: no match.
  std::vector<void*> words(64, Address(0x7));
  words[62] = Address(kFirst);
  std::vector<void*> range(words.begin(), words.begin() + 63);
  EXPECT_EQ(Search(range).places, 0u);
  // Its address point would lie before the range's start.
  std::vector<void*> early(16, Address(0x7));
  early[2] = Address(kFirst);
  early[6] = Address(kSecond);
  EXPECT_EQ(Search(early).places, 0u);
}

}  // namespace
}  // namespace moraine::ducklake_adapter
