// An ordered map with value semantics and O(1) copies: a treap whose nodes are
// immutable and shared between copies (path copying). Setting or erasing a key
// copies only the O(log n) nodes on the path to it.
//
// Why: a catalog state is copied for every transaction and every commit. With a
// std::map that copy costs O(table width + file count); with this map it costs
// a pointer, so a commit's cost follows the columns it touches, not the table's
// width or the lake's history (RFC 0012's O(columns-touched) goal).
//
// Thread-safety: as a standard container: const members may run on one map from
// any threads at once, an edit needs the map to itself. Copies share only
// immutable nodes, counted by shared_ptr (atomically), so copies may be read
// and edited on different threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace moraine::catalog {

template <class K, class V, class Less = std::less<K>, class Hash = std::hash<K>>
class PersistentMap {
  struct Node;
  using NodePtr = std::shared_ptr<const Node>;

  struct Node {
    K key;
    V value;
    uint64_t priority;
    NodePtr left;
    NodePtr right;
    size_t size;
  };

 public:
  PersistentMap() = default;

  size_t size() const { return root_ ? root_->size : 0; }
  bool empty() const { return root_ == nullptr; }

  // The value at `key`, or nullptr. Valid while any copy holding it lives.
  const V* Find(const K& key) const {
    const Node* node = root_.get();
    while (node) {
      if (less_(key, node->key)) {
        node = node->left.get();
      } else if (less_(node->key, key)) {
        node = node->right.get();
      } else {
        return &node->value;
      }
    }
    return nullptr;
  }

  bool Contains(const K& key) const { return Find(key) != nullptr; }

  // Inserts or replaces; other copies of this map are unaffected.
  void Set(const K& key, V value) {
    if (Find(key)) root_ = Erased(root_, key);
    auto [left, right] = Split(root_, key);
    auto single = MakeNode(key, std::move(value), PriorityOf(key), nullptr, nullptr);
    root_ = Merge(Merge(left, single), right);
  }

  // Removes `key`; returns whether it was present.
  bool Erase(const K& key) {
    if (!Find(key)) return false;
    root_ = Erased(root_, key);
    return true;
  }

  // Visits every entry in key order; `visit(key, value)` returns false to stop.
  template <class Visit>
  void ForEach(Visit&& visit) const {
    Walk(root_.get(), nullptr, nullptr, visit);
  }

  // Visits the entries with lower <= key < upper, in key order.
  template <class Visit>
  void ForEachInRange(const K& lower, const K& upper, Visit&& visit) const {
    Walk(root_.get(), &lower, &upper, visit);
  }

  // The greatest key, or nullptr when empty.
  const K* LastKey() const {
    const Node* node = root_.get();
    if (!node) return nullptr;
    while (node->right) node = node->right.get();
    return &node->key;
  }

  std::vector<std::pair<K, V>> Entries() const {
    std::vector<std::pair<K, V>> entries;
    entries.reserve(size());
    ForEach([&](const K& key, const V& value) {
      entries.emplace_back(key, value);
      return true;
    });
    return entries;
  }

 private:
  // Priorities come from the key, so the tree's shape depends only on its
  // contents: equal maps are shaped alike and nothing here is random.
  static uint64_t PriorityOf(const K& key) {
    uint64_t x = static_cast<uint64_t>(Hash{}(key)) + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

  static size_t SizeOf(const NodePtr& node) { return node ? node->size : 0; }

  static NodePtr MakeNode(const K& key, V value, uint64_t priority, NodePtr left, NodePtr right) {
    const size_t size = 1 + SizeOf(left) + SizeOf(right);
    return std::make_shared<const Node>(
        Node{key, std::move(value), priority, std::move(left), std::move(right), size});
  }

  static NodePtr WithChildren(const Node& node, NodePtr left, NodePtr right) {
    return MakeNode(node.key, node.value, node.priority, std::move(left), std::move(right));
  }

  // Splits into (keys < key, keys >= key).
  std::pair<NodePtr, NodePtr> Split(const NodePtr& node, const K& key) const {
    if (!node) return {nullptr, nullptr};
    if (less_(node->key, key)) {
      auto [left, right] = Split(node->right, key);
      return {WithChildren(*node, node->left, std::move(left)), std::move(right)};
    }
    auto [left, right] = Split(node->left, key);
    return {std::move(left), WithChildren(*node, std::move(right), node->right)};
  }

  // Joins two treaps whose keys are all ordered left before right.
  static NodePtr Merge(const NodePtr& left, const NodePtr& right) {
    if (!left) return right;
    if (!right) return left;
    if (left->priority >= right->priority) {
      return WithChildren(*left, left->left, Merge(left->right, right));
    }
    return WithChildren(*right, Merge(left, right->left), right->right);
  }

  NodePtr Erased(const NodePtr& node, const K& key) const {
    if (less_(key, node->key)) return WithChildren(*node, Erased(node->left, key), node->right);
    if (less_(node->key, key)) return WithChildren(*node, node->left, Erased(node->right, key));
    return Merge(node->left, node->right);
  }

  template <class Visit>
  bool Walk(const Node* node, const K* lower, const K* upper, Visit& visit) const {
    if (!node) return true;
    const bool above_lower = !lower || !less_(node->key, *lower);
    const bool below_upper = !upper || less_(node->key, *upper);
    if (above_lower && !Walk(node->left.get(), lower, upper, visit)) return false;
    if (above_lower && below_upper && !visit(node->key, node->value)) return false;
    if (below_upper) return Walk(node->right.get(), lower, upper, visit);
    return true;
  }

  NodePtr root_;
  [[no_unique_address]] Less less_;
};

}  // namespace moraine::catalog
