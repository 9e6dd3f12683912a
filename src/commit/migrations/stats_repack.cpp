#include "commit/migrations/stats_repack.h"

#include <google/protobuf/message.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog_version.h"
#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/value_frame.h"

namespace moraine::commit {

using catalog::RowMapping;
using catalog::RowShape;
using store::Kind;

const std::vector<RowMapping>& FormatOneStatsMappings() {
  static const std::vector<RowMapping> mappings = [] {
    constexpr auto kVersion = catalog::kNewestCatalogVersion;
    // RowMapping keeps a pointer to the table: the static one, never a copy.
    const auto table = [&](std::string_view name) -> const catalog::CatalogTable& {
      return *catalog::FindCatalogTable(name, kVersion);
    };
    std::vector<RowMapping> result;
    result.emplace_back(table("ducklake_file_column_stats"), Kind::kFileColumnStats,
                        RowShape::kRecord,
                        std::vector<std::string_view>{"table_id", "data_file_id", "column_id"});
    result.emplace_back(table("ducklake_file_variant_stats"), Kind::kFileVariantStats,
                        RowShape::kEntry,
                        std::vector<std::string_view>{"table_id", "data_file_id", "column_id"});
    result.emplace_back(table("ducklake_table_column_stats"), Kind::kTableColumnStats,
                        RowShape::kRecord, std::vector<std::string_view>{"table_id", "column_id"});
    return result;
  }();
  return mappings;
}

StatsRepackCounts RepackColumnStats(const store::KvSnapshot& snapshot, store::WriteBatch* batch) {
  StatsRepackCounts counts;
  for (const RowMapping& old_mapping : FormatOneStatsMappings()) {
    const RowMapping& new_mapping =
        *catalog::FindRowMapping(catalog::kNewestCatalogVersion, old_mapping.table().name);
    // Old keys come in (table, file, column) order, so entries append in order.
    std::map<std::string, std::unique_ptr<google::protobuf::Message>> containers;
    const auto add = [&](const catalog::Row& row) {
      auto& container = containers[new_mapping.KeyOf(row).Encode()];
      if (!container) {
        container = new_mapping.NewRecord();
        new_mapping.WriteContainer(row, container.get());
      }
      new_mapping.InsertEntry(container.get(), row);
      ++counts.rows;
    };
    for (auto it =
             snapshot.Scan(store::PrefixRange(store::Subspace::kCurrent, old_mapping.kind(), {}));
         it->Valid(); it->Next()) {
      auto record = old_mapping.NewRecord();
      store::UnframeValue(old_mapping.kind(), it->value(), record.get());
      if (old_mapping.shape() == RowShape::kRecord) {
        add(old_mapping.ReadRecord(*record));
      } else {
        for (int i = 0; i < old_mapping.EntryCount(*record); ++i) {
          add(old_mapping.ReadEntry(*record, i));
        }
      }
      batch->Delete(std::string(it->key()));
      ++counts.old_keys;
    }
    for (const auto& [key, container] : containers) {
      batch->Put(key, store::FrameValue(new_mapping.kind(), *container));
      ++counts.containers;
    }
  }
  return counts;
}

}  // namespace moraine::commit
