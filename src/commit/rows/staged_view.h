// A transaction's view of the store: one consistent snapshot with the
// transaction's own staged writes laid over it, so it reads what it wrote.
//
// Thread-safety: not thread-safe; owned by one transaction and used as it is,
// one thread at a time.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::commit {

class StagedView {
 public:
  explicit StagedView(std::unique_ptr<store::KvSnapshot> snapshot)
      : snapshot_(std::move(snapshot)) {}

  std::optional<std::string> Get(const std::string& key) const;
  // Visits the keys in `range` in order, staged writes taking precedence and
  // staged deletes hiding what the snapshot holds.
  void Scan(const store::KeyRange& range,
            const std::function<void(std::string_view key, std::string_view value)>& visit) const;

  // The greatest key in `range` as this view sees it (staged puts in,
  // staged deletes out), nullopt if none: a seek from the end per staged
  // delete it meets, never a walk over the range.
  std::optional<std::string> LastKeyIn(const store::KeyRange& range) const;

  void Put(const std::string& key, std::string value) { writes_[key] = std::move(value); }
  void Delete(const std::string& key) { writes_[key] = std::nullopt; }

  bool HasWrites() const { return !writes_.empty(); }
  // Whether this view stages a write (a put or a delete) of `key`.
  bool Stages(const std::string& key) const { return writes_.contains(key); }
  // Every staged write, in key order.
  void AppendTo(store::WriteBatch* batch) const;
  // The staged puts in `range`, in key order (staged deletes left out).
  void VisitStagedPuts(const store::KeyRange& range,
                       const std::function<void(std::string_view key)>& visit) const;
  // The staged writes in `range`, in key order: each key with its value,
  // nullopt for a delete.
  void VisitStagedWrites(
      const store::KeyRange& range,
      const std::function<void(std::string_view key, const std::optional<std::string>& value)>&
          visit) const;
  // Whether this view stages any write in `range`.
  bool StagesAnyIn(const store::KeyRange& range) const;

 private:
  std::unique_ptr<store::KvSnapshot> snapshot_;
  std::map<std::string, std::optional<std::string>> writes_;
};

}  // namespace moraine::commit
