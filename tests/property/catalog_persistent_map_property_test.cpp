// PersistentMap against std::map: arbitrary Set/Erase/Find/ForEachInRange/
// LastKey sequences agree, and a copy taken before edits never sees them
// (persistence: nodes are shared, never mutated).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "catalog/persistent_map.h"

namespace moraine::catalog {
namespace {

const bool kRapidcheckParamsSet = [] {
  setenv("RC_PARAMS", "max_success=1000", /*overwrite=*/0);
  return true;
}();

// A uniform draw from [min, max), independent of the test's size.
template <class T>
T Uniform(T min, T max) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

template <class K, class V, class Less, class Hash>
std::vector<std::pair<K, V>> Contents(const PersistentMap<K, V, Less, Hash>& map) {
  std::vector<std::pair<K, V>> out;
  map.ForEach([&](const K& key, const V& value) {
    out.emplace_back(key, value);
    return true;
  });
  return out;
}

template <class K, class V>
std::vector<std::pair<K, V>> Contents(const std::map<K, V>& map) {
  return {map.begin(), map.end()};
}

// Checks every read of `map` against `expected`; `probe` draws keys.
template <class K, class V, class Less, class Hash, class Probe>
void CheckAgrees(const PersistentMap<K, V, Less, Hash>& map, const std::map<K, V>& expected,
                 Probe probe) {
  RC_ASSERT(map.size() == expected.size());
  RC_ASSERT(map.empty() == expected.empty());
  RC_ASSERT(Contents(map) == Contents(expected));
  RC_ASSERT(map.Entries() == Contents(expected));
  if (expected.empty()) {
    RC_ASSERT(map.LastKey() == nullptr);
  } else {
    RC_ASSERT(map.LastKey() != nullptr);
    RC_ASSERT(*map.LastKey() == expected.rbegin()->first);
  }
  for (int i = 0; i < 4; ++i) {
    const K key = probe();
    const V* found = map.Find(key);
    auto it = expected.find(key);
    RC_ASSERT((found != nullptr) == (it != expected.end()));
    if (found) RC_ASSERT(*found == it->second);
    RC_ASSERT(map.Contains(key) == (it != expected.end()));
  }
}

RC_GTEST_PROP(PersistentMapProperty, RunsAtLeast1000Cases, ()) {
  RC_ASSERT(rc::detail::configuration().testParams.maxSuccess >= 1000);
}

RC_GTEST_PROP(PersistentMapProperty, AgreesWithStdMapAndCopiesNeverChange, ()) {
  // A narrow key range makes overwrites, erases of present keys and empty
  // ranges all common.
  const int key_range = Uniform(1, 200);
  auto key = [&] { return Uniform(-5, key_range); };

  PersistentMap<int, int> map;
  std::map<int, int> expected;
  std::vector<std::pair<PersistentMap<int, int>, std::map<int, int>>> copies;

  const int steps = Uniform(0, 300);
  for (int step = 0; step < steps; ++step) {
    switch (Uniform(0, 8)) {
      case 0:
      case 1:
      case 2: {
        const int k = key();
        const int v = *rc::gen::arbitrary<int>();
        map.Set(k, v);
        expected[k] = v;
        break;
      }
      case 3:
      case 4: {
        const int k = key();
        RC_ASSERT(map.Erase(k) == (expected.erase(k) == 1));
        break;
      }
      case 5: {
        const int k = key();
        const int* found = map.Find(k);
        auto it = expected.find(k);
        RC_ASSERT((found != nullptr) == (it != expected.end()));
        if (found) RC_ASSERT(*found == it->second);
        break;
      }
      case 6: {
        // lower <= key < upper, including empty and inverted ranges; and a
        // visitor that stops early sees exactly a prefix.
        const int lower = key();
        const int upper = key();
        const size_t stop_after = Uniform<size_t>(0, 20);
        std::vector<std::pair<int, int>> seen, stopped;
        map.ForEachInRange(lower, upper, [&](int k, int v) {
          seen.emplace_back(k, v);
          return true;
        });
        map.ForEachInRange(lower, upper, [&](int k, int v) {
          stopped.emplace_back(k, v);
          return stopped.size() < stop_after;
        });
        std::vector<std::pair<int, int>> want;
        for (auto it = expected.lower_bound(lower); it != expected.end() && it->first < upper;
             ++it) {
          want.push_back(*it);
        }
        RC_ASSERT(seen == want);
        want.resize(std::min(want.size(), std::max<size_t>(stop_after, 1)));
        RC_ASSERT(stopped == want);
        break;
      }
      case 7:
        copies.emplace_back(map, expected);  // a snapshot to re-check at the end
        break;
    }
    if (step % 16 == 0) CheckAgrees(map, expected, key);
  }
  CheckAgrees(map, expected, key);
  // Every copy still holds exactly what the original held when it was taken.
  for (const auto& [copy, then] : copies) CheckAgrees(copy, then, key);
}

// The catalog's own key shape: (parent id, name) with a custom hash, where
// ranges select one parent's children.
struct PairHash {
  size_t operator()(const std::pair<int64_t, std::string>& key) const {
    return std::hash<int64_t>{}(key.first) * 31 + std::hash<std::string>{}(key.second);
  }
};

RC_GTEST_PROP(PersistentMapProperty, PairKeysAndPrefixRangesAgree, ()) {
  using Key = std::pair<int64_t, std::string>;
  const std::vector<std::string> names = {"", "a", "ab", "b", "element", "key", "value", "z"};
  auto key = [&] { return Key{Uniform<int64_t>(0, 6), *rc::gen::elementOf(names)}; };

  PersistentMap<Key, int64_t, std::less<Key>, PairHash> map;
  std::map<Key, int64_t> expected;
  auto halfway = map;
  auto expected_halfway = expected;
  const int steps = Uniform(0, 200);
  for (int step = 0; step < steps; ++step) {
    const Key k = key();
    if (Uniform(0, 3) == 0) {
      RC_ASSERT(map.Erase(k) == (expected.erase(k) == 1));
    } else {
      map.Set(k, step);
      expected[k] = step;
    }
    if (step == steps / 2) {
      halfway = map;
      expected_halfway = expected;
    }
  }
  CheckAgrees(map, expected, key);
  // Children of one parent: [(p, ""), (p + 1, "")).
  for (int64_t parent = 0; parent < 6; ++parent) {
    std::vector<std::pair<Key, int64_t>> seen;
    map.ForEachInRange({parent, ""}, {parent + 1, ""}, [&](const Key& k, int64_t v) {
      seen.emplace_back(k, v);
      return true;
    });
    std::vector<std::pair<Key, int64_t>> want;
    for (const auto& entry : expected) {
      if (entry.first.first == parent) want.push_back(entry);
    }
    RC_ASSERT(seen == want);
  }
  CheckAgrees(halfway, expected_halfway, key);
}

// Persistence, made direct: the copy, then edits to the original of every
// kind (overwrite, insert, erase, erase-all), then the copy is re-read.
RC_GTEST_PROP(PersistentMapProperty, ACopyIsUnaffectedByLaterEditsToTheOriginal, ()) {
  const auto initial = *rc::gen::container<std::map<int, int>>(
      rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 64)), rc::gen::arbitrary<int>());
  PersistentMap<int, int> original;
  for (const auto& [k, v] : initial) original.Set(k, v);
  const PersistentMap<int, int> copy = original;

  const auto edits = *rc::gen::container<std::vector<std::pair<int, int>>>(rc::gen::pair(
      rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 80)), rc::gen::arbitrary<int>()));
  std::map<int, int> edited = initial;
  for (const auto& [k, v] : edits) {
    if (v % 3 == 0) {
      original.Erase(k);
      edited.erase(k);
    } else {
      original.Set(k, v);
      edited[k] = v;
    }
  }
  auto probe = [] { return Uniform(-1, 81); };
  CheckAgrees(original, edited, probe);
  CheckAgrees(copy, initial, probe);

  // And the other direction: editing the copy leaves the original alone.
  PersistentMap<int, int> second = original;
  for (const auto& [k, v] : edited) second.Erase(k);
  RC_ASSERT(second.empty());
  CheckAgrees(original, edited, probe);
}

}  // namespace
}  // namespace moraine::catalog
