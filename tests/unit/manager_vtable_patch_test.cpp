// ManagerVtablePatch: moraine's methods go into the slots the build's ABI
// names, wherever they sit; a method a build lacks (gone, or with another
// signature) keeps DuckLake's function, and so does every method whose
// replacement calls a lacking one, each named in kept().
#include "ducklake_adapter/manager_vtable_patch.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace moraine::ducklake_adapter {
namespace {

namespace abi = ducklake_abi;
using M = abi::ManagerMethod;

// Distinct fake function addresses: DuckLake's are 0x1000 + slot, moraine's 0x9000 + n.
void* Address(uintptr_t value) { return reinterpret_cast<void*>(value); }

class ManagerVtablePatchTest : public ::testing::Test {
 protected:
  static constexpr size_t kSlots = 24;

  // A build whose methods sit in reverse order of ManagerMethod, from slot 2 on.
  ManagerVtablePatchTest() {
    vtable_.push_back(Address(0));       // offset to top
    vtable_.push_back(Address(0xbeef));  // typeinfo
    for (size_t slot = 0; slot < kSlots; ++slot) vtable_.push_back(Address(0x1000 + slot));
    for (size_t method = 0; method < abi::kManagerMethodCount; ++method) {
      slot_of_[method] = 2 + (abi::kManagerMethodCount - 1 - method);
    }
  }

  size_t SlotOf(M method) const { return *slot_of_[static_cast<size_t>(method)]; }
  void* PatchedSlot(const ManagerVtablePatch& patch, M method) const {
    return patch.address_point()[SlotOf(method)];
  }

  std::vector<void*> vtable_;
  ManagerVtablePatch::SlotOf slot_of_;
};

TEST_F(ManagerVtablePatchTest, AMethodGoesWhereTheBuildHasItAndTheOriginalStaysReachable) {
  ManagerVtablePatch patch(vtable_, slot_of_);
  EXPECT_TRUE(patch.Replace(M::kGetSnapshot, Address(0x9001)));
  EXPECT_EQ(PatchedSlot(patch, M::kGetSnapshot), Address(0x9001));
  EXPECT_EQ(patch.Original(M::kGetSnapshot), Address(0x1000 + SlotOf(M::kGetSnapshot)));
  // Every other slot, and the header words before the address point, are DuckLake's.
  for (size_t slot = 0; slot < kSlots; ++slot) {
    if (slot == SlotOf(M::kGetSnapshot)) continue;
    EXPECT_EQ(patch.address_point()[slot], Address(0x1000 + slot)) << slot;
  }
  EXPECT_EQ(patch.address_point()[-1], Address(0xbeef));
  EXPECT_EQ(patch.kept(), "");
}

TEST_F(ManagerVtablePatchTest, AMethodWithAnotherSignatureKeepsDuckLakesAnswerAlone) {
  // The build's GetGlobalTableStats has another signature: its mangled name
  // is not the declared one, so the build's ABI has no slot for it.
  slot_of_[static_cast<size_t>(M::kGetGlobalTableStats)].reset();
  ManagerVtablePatch patch(vtable_, slot_of_);
  EXPECT_FALSE(patch.Has(M::kGetGlobalTableStats));
  EXPECT_FALSE(patch.Replace(M::kGetGlobalTableStats, Address(0x9002)));
  EXPECT_TRUE(patch.Replace(M::kGetNextColumnId, Address(0x9003)));
  EXPECT_EQ(PatchedSlot(patch, M::kGetNextColumnId), Address(0x9003));
  for (size_t slot = 0; slot < kSlots; ++slot) {
    if (slot == SlotOf(M::kGetNextColumnId)) continue;
    EXPECT_EQ(patch.address_point()[slot], Address(0x1000 + slot)) << slot;
  }
  EXPECT_EQ(patch.kept(), "GetGlobalTableStats (not in this build)");
}

TEST_F(ManagerVtablePatchTest, AReplacementThatCallsALackingMethodIsNotInstalled) {
  // moraine's Execute runs what it does not stage through DuckLake's Query(q).
  slot_of_[static_cast<size_t>(M::kQuery)].reset();
  ManagerVtablePatch patch(vtable_, slot_of_);
  EXPECT_FALSE(patch.Replace(M::kExecute, Address(0x9004), {M::kQuery}));
  EXPECT_EQ(PatchedSlot(patch, M::kExecute), Address(0x1000 + SlotOf(M::kExecute)));
  EXPECT_FALSE(patch.Replace(M::kGetSnapshotAt, Address(0x9005), {M::kQuery}));
  EXPECT_EQ(patch.kept(),
            "Execute(snapshot, batch) (needs Query(query), not in this build), "
            "GetSnapshot(at, bound) (needs Query(query), not in this build)");
}

TEST_F(ManagerVtablePatchTest, ASlotOutsideTheVtableIsRefused) {
  slot_of_[static_cast<size_t>(M::kGetSnapshot)] = kSlots;
  try {
    ManagerVtablePatch patch(vtable_, slot_of_);
    FAIL() << "a slot past the vtable's end was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "a manager method's slot 24 is outside the vtable's 24 slots");
  }
}

}  // namespace
}  // namespace moraine::ducklake_adapter
