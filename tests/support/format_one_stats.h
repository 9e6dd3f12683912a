// Rewrites a store's column stats the way store format 1 kept them (a record
// per file or table column stats row, a container per file column of
// variant stats) and records format 1: a real format-1 store to migrate,
// built from one DuckLake wrote with today's build.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "catalog/catalog_version.h"
#include "catalog/row_mapping.h"
#include "commit/migrations/stats_repack.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/value_frame.h"
#include "support/store_format_record.h"

namespace moraine::test {

// Returns how many stats rows it moved.
inline size_t RewriteStatsAsFormatOne(const std::string& location) {
  size_t rows = 0;
  {
    auto store = store::OpenKvStore({.location = location});
    auto snapshot = store->GetSnapshot();
    store::WriteBatch batch;
    for (const catalog::RowMapping& old_mapping : commit::FormatOneStatsMappings()) {
      const catalog::RowMapping& mapping =
          *catalog::FindRowMapping(catalog::kNewestCatalogVersion, old_mapping.table().name);
      std::map<std::string, std::unique_ptr<google::protobuf::Message>> old_containers;
      for (auto it =
               snapshot->Scan(store::PrefixRange(store::Subspace::kCurrent, mapping.kind(), {}));
           it->Valid(); it->Next()) {
        auto container = mapping.NewRecord();
        store::UnframeValue(mapping.kind(), it->value(), container.get());
        for (int i = 0; i < mapping.EntryCount(*container); ++i) {
          const catalog::Row row = mapping.ReadEntry(*container, i);
          const std::string key = old_mapping.KeyOf(row).Encode();
          ++rows;
          if (old_mapping.shape() == catalog::RowShape::kRecord) {
            auto record = old_mapping.NewRecord();
            old_mapping.WriteRecord(row, record.get());
            batch.Put(key, store::FrameValue(old_mapping.kind(), *record));
            continue;
          }
          auto& old = old_containers[key];
          if (!old) {
            old = old_mapping.NewRecord();
            old_mapping.WriteContainer(row, old.get());
          }
          old_mapping.InsertEntry(old.get(), row);
        }
        batch.Delete(std::string(it->key()));
      }
      for (const auto& [key, old] : old_containers) {
        batch.Put(key, store::FrameValue(old_mapping.kind(), *old));
      }
    }
    store->Write(batch);
  }
  WriteStoreFormat(location, 1);
  return rows;
}

}  // namespace moraine::test
