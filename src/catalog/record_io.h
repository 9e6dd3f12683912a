// Reading framed records out of the store, and the temporal filter that
// reconstructs any snapshot: live rows with begin <= S from `current`, ended
// rows with begin <= S < end from `history` (RFC 0002).
#pragma once

#include <optional>
#include <string>

#include "catalog/records.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/value_frame.h"

namespace moraine::catalog {

// Reads and decodes the record at `key`; nullopt when absent. A value that is
// not a well-formed record of the key's kind throws store::CorruptionError.
template <class Record>
std::optional<Record> ReadRecord(const store::KvSnapshot& snapshot, const store::Key& key) {
  auto bytes = snapshot.Get(key.Encode());
  if (!bytes) return std::nullopt;
  Record record;
  store::UnframeValue(key.kind(), *bytes, &record);
  return record;
}

// Visits every record in `range`, decoded as `Record`.
template <class Record, class Visit>
void ScanRecords(const store::KvSnapshot& snapshot, const store::KeyRange& range, store::Kind kind,
                 Visit&& visit) {
  for (auto it = snapshot.Scan(range); it->Valid(); it->Next()) {
    Record record;
    store::UnframeValue(kind, it->value(), &record);
    visit(record);
  }
}

// Visits the versions of `kind` (within `prefix` components) that were live at
// snapshot `at`, or the live versions when `at` is nullopt (head: `current` only).
template <class Record, class Visit>
void ScanVersionsAt(const store::KvSnapshot& snapshot, store::Kind kind,
                    std::initializer_list<uint64_t> prefix, std::optional<Id> at, Visit&& visit) {
  ScanRecords<Record>(snapshot, store::PrefixRange(store::Subspace::kCurrent, kind, prefix), kind,
                      [&](const Record& record) {
                        if (!at || record.begin_snapshot() <= *at) visit(record);
                      });
  if (!at) return;
  ScanRecords<Record>(snapshot, store::PrefixRange(store::Subspace::kHistory, kind, prefix), kind,
                      [&](const Record& record) {
                        if (record.begin_snapshot() <= *at && *at < record.end_snapshot()) {
                          visit(record);
                        }
                      });
}

}  // namespace moraine::catalog
