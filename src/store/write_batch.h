#pragma once

// A backend-neutral, ordered list of puts and deletes applied atomically by
// KvStore::Write. A plain value type so the commit path can build it without
// knowing which engine will apply it.
//
// A repeated key: the operations apply in order, so the last one on a key
// decides what the key holds after the write (a Put after a Delete puts, a
// Delete after a Put deletes). Every backend honours this: RocksDB applies
// the list as it is, the etcd backend sends only the last operation per key
// (etcd refuses a transaction that names one key twice). ops() and size()
// count every operation, repeats included.
//
// Thread-safety: a value type: build it on one thread (or guard it); once
// built it may be read from several threads.

#include <string>
#include <string_view>
#include <vector>

namespace moraine::store {

class WriteBatch {
 public:
  enum class OpType { kPut, kDelete };
  struct Op {
    OpType type;
    std::string key;
    std::string value;  // empty for kDelete
  };

  void Put(std::string_view key, std::string_view value) {
    ops_.push_back({OpType::kPut, std::string(key), std::string(value)});
  }
  void Delete(std::string_view key) { ops_.push_back({OpType::kDelete, std::string(key), {}}); }
  // Every operation of `other` after this batch's, in order.
  void Append(const WriteBatch& other) {
    ops_.insert(ops_.end(), other.ops_.begin(), other.ops_.end());
  }
  void Clear() { ops_.clear(); }

  const std::vector<Op>& ops() const { return ops_; }
  size_t size() const { return ops_.size(); }
  bool empty() const { return ops_.empty(); }

 private:
  std::vector<Op> ops_;
};

}  // namespace moraine::store
