// Rewrites a store's sys/format record the way another build (or none) left
// it, for the tests of the store-format axis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "commit/lake/store_records.h"
#include "store/kv_store.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::test {

// Records format `version`; nullopt removes the record, which is what a store
// written before the format record existed (format 0) looks like.
inline void WriteStoreFormat(const std::string& location, std::optional<uint64_t> version) {
  auto store = store::OpenKvStore({.location = location});
  store::WriteBatch batch;
  if (version) {
    store::v1::FormatRecord format;
    format.set_format_version(*version);
    format.set_written_by("moraine test");
    batch.Put(commit::FormatKey(), store::FrameValue(store::Kind::kFormat, format));
  } else {
    batch.Delete(commit::FormatKey());
  }
  store->Write(batch);
}

}  // namespace moraine::test
