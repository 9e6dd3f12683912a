#include "ducklake_adapter/manager_vtable_patch.h"

#include <stdexcept>

namespace moraine::ducklake_adapter {

namespace abi = ducklake_abi;

ManagerVtablePatch::ManagerVtablePatch(std::vector<void*> vtable, const SlotOf& slot_of)
    : original_(std::move(vtable)), patched_(original_), slot_of_(slot_of) {
  for (const auto& slot : slot_of_) {
    if (slot && abi::kVtableHeaderWords + *slot >= original_.size()) {
      throw std::invalid_argument(
          "a manager method's slot " + std::to_string(*slot) + " is outside the vtable's " +
          std::to_string(original_.size() - abi::kVtableHeaderWords) + " slots");
    }
  }
}

bool ManagerVtablePatch::Has(abi::ManagerMethod method) const {
  return slot_of_[static_cast<size_t>(method)].has_value();
}

void* ManagerVtablePatch::Original(abi::ManagerMethod method) const {
  return original_[abi::kVtableHeaderWords + slot_of_[static_cast<size_t>(method)].value()];
}

bool ManagerVtablePatch::Replace(abi::ManagerMethod method, void* replacement,
                                 std::initializer_list<abi::ManagerMethod> calls) {
  std::string lacking;
  if (!Has(method)) {
    lacking = "not in this build";
  } else {
    for (abi::ManagerMethod called : calls) {
      if (!Has(called)) {
        lacking = std::string("needs ") + abi::ManagerMethodName(called) + ", not in this build";
        break;
      }
    }
  }
  if (!lacking.empty()) {
    kept_ += (kept_.empty() ? "" : ", ") + std::string(abi::ManagerMethodName(method)) + " (" +
             lacking + ")";
    return false;
  }
  patched_[abi::kVtableHeaderWords + *slot_of_[static_cast<size_t>(method)]] = replacement;
  return true;
}

}  // namespace moraine::ducklake_adapter
