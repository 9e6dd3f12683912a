// Fuzzes the key decoder (store/key.h) with arbitrary bytes.
//
// Properties: Key::Decode succeeds or throws store::Error; a key that decodes
// re-encodes to exactly the input bytes (one encoding per key, so byte order
// stays numeric order); its history form, where it has one, decodes back to
// itself with the appended end snapshot; and decoded keys order like their bytes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_contract.h"
#include "store/key.h"

using moraine::fuzz::Decodes;
using moraine::fuzz::Require;
using moraine::store::Key;

namespace {

void CheckHistoryForm(const Key& key) {
  const auto& info = moraine::store::GetKindInfo(key.kind());
  if (key.subspace() != moraine::store::Subspace::kCurrent || !info.versioned) return;
  const uint64_t end = key.components().empty() ? 0 : key.components().back() ^ 0x5a5a;
  const Key history = key.ToHistory(end);
  const std::string bytes = history.Encode();
  const std::string current = key.Encode();
  Require(
      static_cast<uint8_t>(bytes[0]) == static_cast<uint8_t>(moraine::store::Subspace::kHistory) &&
          bytes[1] == current[1] && bytes.substr(2).starts_with(current.substr(2)),
      "a history key is its current key's kind and components, then the end snapshot");
  Require(Key::Decode(bytes) == history, "a history key round-trips");
  Require(history.component(history.components().size() - 1) == end,
          "a history key ends with its end snapshot");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Split the input in two keys, so ordering gets exercised as well.
  const size_t half = size / 2;
  std::optional<Key> first;
  std::optional<Key> whole;
  Decodes([&] { whole = Key::Decode(input); });
  Decodes([&] { first = Key::Decode(input.substr(0, half)); });
  std::optional<Key> second;
  Decodes([&] { second = Key::Decode(input.substr(half)); });

  if (whole) {
    Require(whole->Encode() == input, "a decoded key re-encodes to its bytes");
    Require(!whole->ToString().empty(), "a decoded key has a name");
    CheckHistoryForm(*whole);
  }
  if (first && second) {
    const std::string a = first->Encode();
    const std::string b = second->Encode();
    Require(((*first <=> *second) < 0) == (a < b), "keys order like their bytes");
    Require((*first == *second) == (a == b), "equal keys are equal bytes");
  }
  return 0;
}
