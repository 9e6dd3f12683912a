#include "commit/rows/storage/entry_storage.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog_version.h"
#include "commit/rows/storage/version_option.h"
#include "store/value_frame.h"

namespace moraine::commit {

void EntryStorage::ReadValueRows(std::string_view value, const ScanPlan& plan,
                                 const RowSink& sink) {
  // Read from the container's wire form, as records are: scans of column
  // stats read a container per data file, and building each as a message
  // cost most of their time. Entries are read up front: a visitor may stage
  // writes to this key. Options are read whole: the version option is known
  // by its key and scope.
  static const std::vector<bool> kEveryColumn;
  const bool options = mapping_.kind() == store::Kind::kOption;
  auto rows = mapping_.ReadEntriesPayload(store::UnframePayload(mapping_.kind(), value),
                                          options ? kEveryColumn : plan.wanted, plan.entry_low,
                                          plan.entry_high);
  for (auto& [row, ordinal] : rows) {
    // A store reports the version whose shape it is served ("1.1-dev1"
    // reads "1.1"), so DuckLake never asks to migrate a label.
    if (IsVersionOption(mapping_.table().name, row) && !catalog::IsNull(row[1])) {
      row[1] = catalog::ServedCatalogVersionLabel(std::get<std::string>(row[1]));
    }
  }
  for (auto& [row, ordinal] : rows) sink(std::move(row), ordinal);
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
