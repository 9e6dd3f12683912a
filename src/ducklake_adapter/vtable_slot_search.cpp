#include "ducklake_adapter/vtable_slot_search.h"

namespace moraine::ducklake_adapter {

VtableSlotSearch::Found VtableSlotSearch::Run() const {
  Found found;
  constexpr uintptr_t kWord = sizeof(void*);
  // The first slot of an address point inside the range lies at or after
  // begin + first_offset.
  if (end < begin || end - begin < first_offset + kWord) return found;
  const uintptr_t lowest = (begin + first_offset + kWord - 1) & ~(kWord - 1);
  for (uintptr_t at = lowest; at + kWord <= end; at += kWord) {
    if (*reinterpret_cast<const void* const*>(at) != first) continue;
    const uintptr_t address_point = at - first_offset;
    const uintptr_t second_slot = address_point + second_offset;
    if (second_slot < begin || second_slot + kWord > end ||
        *reinterpret_cast<const void* const*>(second_slot) != second) {
      continue;
    }
    found.first_slot = reinterpret_cast<void**>(at);
    ++found.places;
  }
  return found;
}

}  // namespace moraine::ducklake_adapter
