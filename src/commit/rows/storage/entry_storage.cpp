#include "commit/rows/storage/entry_storage.h"

#include <string>
#include <vector>

#include "catalog/catalog_version.h"
#include "commit/rows/storage/version_option.h"

namespace moraine::commit {

void EntryStorage::ReadValueRows(std::string_view value, const ScanPlan& plan,
                                 const RowSink& sink) {
  const auto decoded = DecodeValue(value);
  const google::protobuf::Message& record = *decoded;
  // Entries are read up front: a visitor may stage writes to this key.
  std::vector<Row> rows;
  std::vector<uint64_t> ordinals;
  for (int i = 0; i < mapping_.EntryCount(record); ++i) {
    if (mapping_.ordered_entries()) {
      const int64_t entry_key = mapping_.EntryKey(record, i);
      if (entry_key < plan.entry_low || entry_key > plan.entry_high) continue;
    }
    ordinals.push_back(mapping_.EntryWriteOrdinal(record, i));
    rows.push_back(mapping_.ReadEntry(record, i));
    // A store reports the version whose shape it is served ("1.1-dev1"
    // reads "1.1"), so DuckLake never asks to migrate a label.
    if (IsVersionOption(mapping_.table().name, rows.back()) && !catalog::IsNull(rows.back()[1])) {
      rows.back()[1] = catalog::ServedCatalogVersionLabel(std::get<std::string>(rows.back()[1]));
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) sink(std::move(rows[i]), ordinals[i]);
}

void EntryStorage::InsertEntry(const Row& row, std::optional<uint64_t> ordinal) {
  const std::string key = mapping_.KeyOf(row).Encode();
  OpenContainer& open = staged_.Open(mapping_, key);
  if (!open.record || mapping_.EntryCount(*open.record) == 0) {
    open.record = mapping_.NewRecord();
    mapping_.WriteContainer(row, open.record.get());
  }
  const uint64_t entry_ordinal =
      mapping_.has_write_ordinal() ? (ordinal ? *ordinal : staged_.NextWriteOrdinal()) : 0;
  mapping_.InsertEntry(open.record.get(), row, entry_ordinal);
  open.dirty = true;
}

void EntryStorage::Remove(const RowTarget& target) {
  const int index = FindEntry(target);
  // An emptied container is deleted when flushed.
  OpenContainer& open = staged_.Open(mapping_, target.key);
  mapping_.RemoveEntry(open.record.get(), index);
  open.dirty = true;
}

int EntryStorage::FindEntry(const RowTarget& target) {
  const auto* container = staged_.Open(mapping_, target.key).record.get();
  if (container) {
    const auto [first, last] = mapping_.EntryRange(*container, target.row);
    for (int i = first; i < last; ++i) {
      if (mapping_.ReadEntry(*container, i) == target.row) return i;
    }
  }
  throw RowGone(target);
}

void EntryStorage::Update(RowTarget& target, const Row& row) {
  const std::string key = mapping_.KeyOf(row).Encode();
  // An ordered entry that keeps its place is rewritten in place, so the
  // fields the served shape does not map keep their values (as records
  // do) and a container of C entries is not reordered per row.
  if (key == target.key && mapping_.ordered_entries()) {
    const int index = FindEntry(target);
    OpenContainer& open = staged_.Open(mapping_, key);
    const auto [first, last] = mapping_.EntryRange(*open.record, row);
    if (index >= first && index < last) {
      auto* container = open.record.get();
      const auto* entries = container->GetDescriptor()->FindFieldByName("entries");
      mapping_.WriteEntry(
          row, container->GetReflection()->MutableRepeatedMessage(container, entries, index));
      open.dirty = true;
      target.key = key;
      return;
    }
  }
  Remove(target);
  InsertEntry(row, target.ordinal);
  target.key = key;
}

}  // namespace moraine::commit
