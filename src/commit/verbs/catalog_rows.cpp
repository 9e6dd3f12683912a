#include "commit/verbs/catalog_rows.h"

#include <string>

#include "store/error.h"

namespace moraine::commit {

using catalog::RowMapping;
using google::protobuf::Message;

namespace {

std::unique_ptr<Message> RecordOf(const RowMapping& mapping, const Row& row) {
  std::unique_ptr<Message> record = mapping.NewRecord();
  mapping.WriteRecord(row, record.get());
  return record;
}

std::optional<int64_t> NumberAt(const Row& row, int column) {
  if (column < 0) return std::nullopt;
  const auto* number = std::get_if<int64_t>(&row[static_cast<size_t>(column)]);
  return number ? std::optional<int64_t>(*number) : std::nullopt;
}

}  // namespace

const RowMapping& CatalogRows::Mapping(std::string_view table) {
  // The verb path writes catalog version 1.0's columns; a 1.0 session keeps
  // the fields only 1.1 maps (RowTransaction), so a raised store keeps them.
  const RowMapping* mapping = catalog::FindRowMapping(catalog::CatalogVersion::kV1_0, table);
  if (!mapping) throw store::InvalidArgumentError("no catalog table " + std::string(table));
  return *mapping;
}

void CatalogRows::Insert(std::string_view table, const Message& record) {
  rows_.Insert(table, Mapping(table).ReadRecord(record));
}

void CatalogRows::InsertEntries(std::string_view table, const Message& container) {
  const RowMapping& mapping = Mapping(table);
  for (int i = 0; i < mapping.EntryCount(container); ++i) {
    rows_.Insert(table, mapping.ReadEntry(container, i));
  }
}

std::vector<CatalogRows::Match> CatalogRows::Matching(const RowMapping& mapping, const Row& key_row,
                                                      size_t key_count, bool live_only) {
  ScanRequest request;
  const std::vector<int>& keys = mapping.key_columns();
  for (size_t i = 0; i < key_count && i < keys.size(); ++i) {
    const auto key = NumberAt(key_row, keys[i]);
    if (key) request.bounds.push_back({static_cast<size_t>(keys[i]), *key, *key, false});
  }
  const int end = mapping.lifetime_end_column();
  const bool live = live_only && end >= 0;
  if (live && mapping.versioned()) {
    request.bounds.push_back({static_cast<size_t>(end), {}, {}, true});
  }
  std::vector<Match> matches;
  rows_.ScanProjected(mapping.table().name, request, [&](RowHandle handle, const Row& row) {
    for (size_t i = 0; i < key_count && i < keys.size(); ++i) {
      const size_t column = static_cast<size_t>(keys[i]);
      if (row[column] != key_row[column]) return;
    }
    if (live && !catalog::IsNull(row[static_cast<size_t>(end)])) return;
    matches.push_back({handle, row});
  });
  return matches;
}

void CatalogRows::EndRow(const RowMapping& mapping, Match match, int64_t snapshot) {
  if (NumberAt(match.row, mapping.begin_column()) == snapshot) {
    rows_.Delete(mapping.table().name, match.handle);
    return;
  }
  match.row[static_cast<size_t>(mapping.lifetime_end_column())] = snapshot;
  rows_.Update(mapping.table().name, match.handle, match.row);
}

void CatalogRows::End(std::string_view table, const Message& record, int64_t snapshot) {
  const RowMapping& mapping = Mapping(table);
  if (mapping.lifetime_end_column() < 0) {
    throw store::InvalidArgumentError(std::string(table) + " has no versions to end");
  }
  const Row key_row = mapping.ReadRecord(record);
  std::vector<Match> matches = Matching(mapping, key_row, mapping.key_columns().size(), true);
  if (matches.empty()) {
    throw store::NotFoundError("no live row of " + std::string(table) + " to end");
  }
  for (Match& match : matches) EndRow(mapping, std::move(match), snapshot);
}

void CatalogRows::EndAllWithKey(std::string_view table, int64_t key, int64_t snapshot) {
  const RowMapping& mapping = Mapping(table);
  if (mapping.lifetime_end_column() < 0) {
    throw store::InvalidArgumentError(std::string(table) + " has no versions to end");
  }
  Row key_row(mapping.table().columns.size());
  key_row[static_cast<size_t>(mapping.key_columns().front())] = key;
  for (Match& match : Matching(mapping, key_row, 1, true)) {
    EndRow(mapping, std::move(match), snapshot);
  }
}

void CatalogRows::Upsert(std::string_view table, const Message& record) {
  const RowMapping& mapping = Mapping(table);
  const Row row = mapping.ReadRecord(record);
  std::vector<Match> matches = Matching(mapping, row, mapping.key_columns().size(), false);
  if (matches.empty()) {
    rows_.Insert(table, row);
    return;
  }
  rows_.Update(table, matches.front().handle, row);
}

void CatalogRows::Remove(std::string_view table, const Message& record) {
  const RowMapping& mapping = Mapping(table);
  for (const Match& match :
       Matching(mapping, mapping.ReadRecord(record), mapping.key_columns().size(), false)) {
    rows_.Delete(table, match.handle);
  }
}

std::unique_ptr<Message> CatalogRows::Find(std::string_view table, const Message& record) {
  const RowMapping& mapping = Mapping(table);
  std::vector<Match> matches =
      Matching(mapping, mapping.ReadRecord(record), mapping.key_columns().size(), true);
  if (matches.empty()) return nullptr;
  return RecordOf(mapping, matches.front().row);
}

void CatalogRows::ForEachLive(std::string_view table, std::optional<int64_t> snapshot,
                              const std::function<void(const Message&)>& visit) {
  const RowMapping& mapping = Mapping(table);
  ScanRequest request;
  request.handles = false;
  if (!snapshot && mapping.versioned()) {
    request.bounds.push_back({static_cast<size_t>(mapping.end_column()), {}, {}, true});
  }
  rows_.ScanProjected(table, request, [&](RowHandle, const Row& row) {
    if (mapping.begin_column() >= 0) {
      const auto begin = NumberAt(row, mapping.begin_column());
      const auto end = NumberAt(row, mapping.lifetime_end_column());
      if (snapshot) {
        if (!begin || *begin > *snapshot) return;
        if (end && *end <= *snapshot) return;
      } else if (end) {
        return;
      }
    }
    visit(*RecordOf(mapping, row));
  });
}

void CatalogRows::ForEach(std::string_view table,
                          const std::function<void(const Message&)>& visit) {
  const RowMapping& mapping = Mapping(table);
  ScanRequest request;
  request.handles = false;
  rows_.ScanProjected(table, request,
                      [&](RowHandle, const Row& row) { visit(*RecordOf(mapping, row)); });
}

}  // namespace moraine::commit

namespace moraine::commit {

void CatalogRows::ForEachEntry(
    std::string_view table,
    const std::function<void(const Message& container, const Message& entry)>& visit) {
  const RowMapping& mapping = Mapping(table);
  ScanRequest request;
  request.handles = false;
  rows_.ScanProjected(table, request, [&](RowHandle, const Row& row) {
    std::unique_ptr<Message> container = mapping.NewRecord();
    mapping.WriteContainer(row, container.get());
    Message* entry = mapping.AddEntry(container.get());
    mapping.WriteEntry(row, entry);
    visit(*container, *entry);
  });
}

}  // namespace moraine::commit
