#include "tools/store_census.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "catalog/record_io.h"
#include "catalog/records.h"
#include "store/key.h"
#include "store/key_kind.h"
#include "util/big_endian.h"

namespace moraine::tools {
namespace {

using store::Key;
using store::Kind;

struct Tally {
  int64_t keys = 0;
  int64_t key_bytes = 0;
  int64_t value_bytes = 0;
};

std::string SubspaceLabel(uint8_t byte) {
  if (store::IsKnownSubspace(byte)) return std::string(store::SubspaceName(store::Subspace(byte)));
  return "unknown 0x" + std::to_string(byte);
}

std::string KindLabel(uint8_t byte) {
  const store::KindInfo* info = store::FindKindInfo(byte);
  return info ? std::string(info->name) : "unknown " + std::to_string(byte);
}

}  // namespace

StoreCensus TakeCensus(const store::KvSnapshot& snapshot) {
  std::map<std::pair<uint8_t, uint8_t>, Tally> tallies;
  Tally total;
  std::optional<int64_t> oldest_snapshot;
  int64_t snapshots = 0;
  for (auto it = snapshot.Scan(store::KeyRange{}); it->Valid(); it->Next()) {
    const std::string_view key = it->key();
    const uint8_t subspace = key.empty() ? 0 : static_cast<uint8_t>(key[0]);
    const uint8_t kind = key.size() < 2 ? 0 : static_cast<uint8_t>(key[1]);
    for (Tally* tally : {&tallies[{subspace, kind}], &total}) {
      tally->keys += 1;
      tally->key_bytes += static_cast<int64_t>(key.size());
      tally->value_bytes += static_cast<int64_t>(it->value().size());
    }
    if (subspace == static_cast<uint8_t>(store::Subspace::kSnapshot) && key.size() == 10) {
      ++snapshots;
      if (!oldest_snapshot)
        oldest_snapshot = static_cast<int64_t>(util::ReadBigEndian64(key.data() + 2));
    }
  }

  StoreCensus result;
  result.summary.columns = {{"property", ToolType::kVarchar}, {"value", ToolType::kVarchar}};
  auto add = [&](std::string property, std::string value) {
    result.summary.rows.push_back({std::move(property), std::move(value)});
  };
  auto format =
      catalog::ReadRecord<store::v1::FormatRecord>(snapshot, Key::Current(Kind::kFormat, {}));
  add("store_format", format ? std::to_string(format->format_version()) : "none");
  if (format) add("written_by", format->written_by());
  std::string version = "1.0 (none recorded)";
  if (auto options = catalog::ReadRecord<catalog::OptionRecord>(
          snapshot, Key::Current(Kind::kOption, {0, 0}))) {
    for (const auto& entry : options->entries()) {
      if (entry.key() == "version") version = entry.value();
    }
  }
  add("catalog_version", version);
  auto head = catalog::ReadRecord<catalog::HeadRecord>(snapshot, Key::Current(Kind::kHead, {}));
  add("head_snapshot", head ? std::to_string(head->snapshot_id()) : "none");
  if (head) {
    add("commit_batches", std::to_string(head->batch_count()));
    if (auto at_head = catalog::ReadRecord<catalog::SnapshotRecord>(
            snapshot, Key::Current(Kind::kSnapshot, {head->snapshot_id()}))) {
      add("schema_version", std::to_string(at_head->schema_version()));
      add("next_catalog_id", std::to_string(at_head->next_catalog_id()));
      add("next_file_id", std::to_string(at_head->next_file_id()));
    }
  }
  add("snapshots", std::to_string(snapshots));
  add("oldest_snapshot", oldest_snapshot ? std::to_string(*oldest_snapshot) : "none");
  add("keys", std::to_string(total.keys));
  add("key_bytes", std::to_string(total.key_bytes));
  add("value_bytes", std::to_string(total.value_bytes));

  result.census.columns = {{"subspace", ToolType::kVarchar},
                           {"kind", ToolType::kVarchar},
                           {"keys", ToolType::kBigint},
                           {"key_bytes", ToolType::kBigint},
                           {"value_bytes", ToolType::kBigint}};
  for (const auto& [at, tally] : tallies) {
    result.census.rows.push_back({SubspaceLabel(at.first), KindLabel(at.second), tally.keys,
                                  tally.key_bytes, tally.value_bytes});
  }
  result.census.rows.push_back(
      {std::string("total"), std::monostate{}, total.keys, total.key_bytes, total.value_bytes});
  return result;
}

}  // namespace moraine::tools
