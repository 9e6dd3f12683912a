#include "commit/rows/head_table_image.h"

#include <algorithm>
#include <set>
#include <vector>

#include "store/error.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {
namespace {

using store::Kind;
using store::Subspace;

// The kinds whose rows an image is made of; the first key component of each
// is the table's id (a ducklake_tag's object id is a table's when the tag is
// a table's).
constexpr Kind kImageSourceKinds[] = {Kind::kTable, Kind::kColumn, Kind::kTag, Kind::kColumnTag,
                                      Kind::kInlinedDataTable};

template <class Tags>
void PutTags(const std::vector<LakeTag>& tags, Tags* out) {
  for (const auto& tag : tags) {
    auto* image = out->Add();
    image->set_key(tag.key);
    image->set_value(tag.value);
  }
}

// The Take* functions move the strings out of a parsed image (not on an
// arena), which is read once: a load of many tables copies each only once.
template <class Tags>
std::vector<LakeTag> TakeTags(Tags* tags) {
  std::vector<LakeTag> out;
  out.reserve(tags->size());
  for (auto& tag : *tags) {
    out.push_back({std::move(*tag.mutable_key()), std::move(*tag.mutable_value())});
  }
  return out;
}

void PutColumn(const LakeColumn& column, store::v1::HeadImageColumn* out) {
  out->set_column_id(column.id);
  out->set_name(column.name);
  out->set_type(column.type);
  if (column.initial_default) out->set_initial_default(*column.initial_default);
  if (column.default_value) out->set_default_value(*column.default_value);
  out->set_default_value_type(column.default_value_type);
  out->set_nulls_allowed(column.nulls_allowed);
  out->set_column_order(column.order);
  for (const auto& child : column.children) PutColumn(child, out->add_children());
  PutTags(column.tags, out->mutable_tags());
}

LakeColumn TakeColumn(store::v1::HeadImageColumn* image) {
  LakeColumn column;
  column.id = image->column_id();
  column.name = std::move(*image->mutable_name());
  column.type = std::move(*image->mutable_type());
  if (image->has_initial_default()) {
    column.initial_default = std::move(*image->mutable_initial_default());
  }
  if (image->has_default_value()) column.default_value = std::move(*image->mutable_default_value());
  column.default_value_type = std::move(*image->mutable_default_value_type());
  column.nulls_allowed = image->nulls_allowed();
  column.order = image->column_order();
  column.children.reserve(image->children_size());
  for (auto& child : *image->mutable_children()) column.children.push_back(TakeColumn(&child));
  column.tags = TakeTags(image->mutable_tags());
  return column;
}

// What a commit changed of one table's image rows.
struct TouchedTable {
  bool table_row = false;
  bool tags = false;
  bool inlined = false;
  bool column_tags = false;
  std::set<int64_t> columns;  // ids of columns whose rows changed
};

// The tables whose image rows `view` stages changes to.
std::map<int64_t, TouchedTable> TouchedTables(const StagedView& view) {
  std::map<int64_t, TouchedTable> tables;
  for (const Kind kind : kImageSourceKinds) {
    view.VisitStagedWrites(store::PrefixRange(Subspace::kCurrent, kind),
                           [&](std::string_view key, const std::optional<std::string>&) {
                             const store::Key decoded = store::Key::Decode(key);
                             TouchedTable& touched =
                                 tables[static_cast<int64_t>(decoded.component(0))];
                             switch (kind) {
                               case Kind::kTable:
                                 touched.table_row = true;
                                 break;
                               case Kind::kTag:
                                 touched.tags = true;
                                 break;
                               case Kind::kInlinedDataTable:
                                 touched.inlined = true;
                                 break;
                               case Kind::kColumnTag:
                                 touched.column_tags = true;
                                 break;
                               default:
                                 touched.columns.insert(static_cast<int64_t>(decoded.component(1)));
                             }
                           });
  }
  return tables;
}

bool RemoveColumn(std::vector<LakeColumn>& columns, int64_t id, LakeColumn* removed) {
  for (auto it = columns.begin(); it != columns.end(); ++it) {
    if (it->id == id) {
      *removed = std::move(*it);
      columns.erase(it);
      return true;
    }
    if (RemoveColumn(it->children, id, removed)) return true;
  }
  return false;
}

bool AllIn(const std::vector<LakeColumn>& columns, const std::set<int64_t>& ids) {
  return std::all_of(columns.begin(), columns.end(), [&](const LakeColumn& column) {
    return ids.count(column.id) && AllIn(column.children, ids);
  });
}

bool AnyIn(const std::vector<LakeColumn>& columns, const std::set<int64_t>& ids) {
  return std::any_of(columns.begin(), columns.end(), [&](const LakeColumn& column) {
    return ids.count(column.id) || AnyIn(column.children, ids);
  });
}

// `image` (the table's image at the base head) advanced by what `touched`
// says the commit changed, each changed part read back from the rows: the
// table row, its tags, its inlined tables, and each changed column's live
// row, placed as the load places it (an altered column keeps its children).
// nullopt where the change is not of that shape (the table is new, its
// columns' tags changed, the image holds a refusal, a column lost its parent
// or left children behind): the table is then read whole.
std::optional<LakeTableLoad> Advanced(RowTransaction& rows, int64_t snapshot, int64_t table_id,
                                      const TouchedTable& touched,
                                      const std::optional<std::string>& image) {
  if (!image || touched.column_tags) return std::nullopt;
  LakeTableLoad load = DecodeHeadTableImage(*image);
  if (load.refusal || load.without_live_columns) return std::nullopt;
  LakeTable& table = load.table;
  if (touched.table_row) {
    LakeTable row;
    if (!ReadLakeTableRow(rows, snapshot, true, table_id, row)) return std::nullopt;
    table.id = row.id;
    table.schema_id = row.schema_id;
    table.uuid = std::move(row.uuid);
    table.name = std::move(row.name);
    table.stored_path = std::move(row.stored_path);
    table.path_is_relative = row.path_is_relative;
  }
  if (touched.tags) {
    const auto tags = ReadLakeTags(rows, "ducklake_tag", false, snapshot, true, table_id);
    const auto found = tags.find({table_id, 0});
    table.tags = found == tags.end() ? std::vector<LakeTag>{} : found->second;
  }
  if (touched.inlined) table.inlined_data_tables = ReadLakeInlinedTables(rows, table_id);
  if (touched.columns.empty()) return load;

  // Children of the changed columns that did not change, to keep under the
  // new versions of their parents.
  std::map<int64_t, std::vector<LakeColumn>> kept_children;
  for (const int64_t id : touched.columns) {
    LakeColumn removed;
    if (!RemoveColumn(table.columns, id, &removed)) continue;
    if (!removed.children.empty()) kept_children[id] = std::move(removed.children);
  }
  std::vector<LakeColumnRow> changed;
  const LakeTagMap column_tags =
      ReadLakeTags(rows, "ducklake_column_tag", true, snapshot, true, table_id);
  for (const int64_t id : touched.columns) {
    ForEachLakeColumnRow(rows, snapshot, true, column_tags, table_id, id,
                         [&](LakeColumnRow row) { changed.push_back(std::move(row)); });
  }
  std::set<int64_t> live_changed;
  for (const auto& row : changed) live_changed.insert(row.column.id);
  for (auto& [parent, children] : kept_children) {
    // A dropped column's children go with it; one left live is read whole,
    // as is a changed column whose children changed too.
    if (live_changed.count(parent) ? AnyIn(children, touched.columns)
                                   : !AllIn(children, touched.columns)) {
      return std::nullopt;
    }
  }
  // Parents before children: a changed column is placed once its parent is,
  // then the children it kept under it.
  while (!changed.empty()) {
    const size_t before = changed.size();
    std::erase_if(changed, [&](LakeColumnRow& row) {
      const int64_t id = row.column.id;
      if (!PlaceColumn(table.columns, std::move(row))) return false;
      if (auto kept = kept_children.find(id); kept != kept_children.end()) {
        // Under the parent just placed: placing them cannot fail.
        for (auto& child : kept->second) {
          PlaceColumn(table.columns, {table_id, id, std::move(child)});
        }
      }
      return true;
    });
    if (changed.size() == before) return std::nullopt;
  }
  if (table.columns.empty()) return std::nullopt;
  return load;
}

}  // namespace

store::Key HeadTableImageKey(int64_t table_id) {
  return store::Key::Current(Kind::kHeadTableImage, {static_cast<uint64_t>(table_id)});
}

store::KeyRange HeadTableImagesRange() {
  return store::PrefixRange(Subspace::kCurrent, Kind::kHeadTableImage);
}

std::string EncodeHeadTableImage(const LakeTableLoad& load) {
  const LakeTable& table = load.table;
  store::v1::HeadTableImage image;
  image.set_table_id(table.id);
  image.set_schema_id(table.schema_id);
  image.set_uuid(table.uuid);
  image.set_name(table.name);
  if (table.stored_path) image.set_path(*table.stored_path);
  image.set_path_is_relative(table.path_is_relative);
  for (const auto& column : table.columns) PutColumn(column, image.add_columns());
  PutTags(table.tags, image.mutable_tags());
  for (const auto& inlined : table.inlined_data_tables) {
    auto* out = image.add_inlined_data_tables();
    out->set_name(inlined.name);
    out->set_schema_version(inlined.schema_version);
  }
  image.set_without_live_columns(load.without_live_columns);
  if (load.refusal) image.set_refusal(*load.refusal);
  return store::FrameValue(Kind::kHeadTableImage, image);
}

LakeTableLoad DecodeHeadTableImage(std::string_view value) {
  store::v1::HeadTableImage image;
  store::UnframeValue(Kind::kHeadTableImage, value, &image);
  LakeTableLoad load;
  LakeTable& table = load.table;
  table.id = image.table_id();
  table.schema_id = image.schema_id();
  table.uuid = std::move(*image.mutable_uuid());
  table.name = std::move(*image.mutable_name());
  if (image.has_path()) table.stored_path = std::move(*image.mutable_path());
  table.path_is_relative = image.path_is_relative();
  table.columns.reserve(image.columns_size());
  for (auto& column : *image.mutable_columns()) table.columns.push_back(TakeColumn(&column));
  table.tags = TakeTags(image.mutable_tags());
  for (auto& inlined : *image.mutable_inlined_data_tables()) {
    table.inlined_data_tables.push_back(
        {std::move(*inlined.mutable_name()), inlined.schema_version()});
  }
  load.without_live_columns = image.without_live_columns();
  if (image.has_refusal()) load.refusal = std::move(*image.mutable_refusal());
  return load;
}

void UpdateHeadTableImages(RowTransaction& rows, StagedView& view, int64_t snapshot) {
  for (const auto& [table_id, touched] : TouchedTables(view)) {
    const std::string key = HeadTableImageKey(table_id).Encode();
    const auto image = view.Get(key);
    if (auto advanced = Advanced(rows, snapshot, table_id, touched, image)) {
      view.Put(key, EncodeHeadTableImage(*advanced));
      continue;
    }
    const auto tags = ReadLakeTags(rows, "ducklake_tag", false, snapshot, true, table_id);
    const auto loads = ReadLakeTableLoads(rows, snapshot, true, tags, table_id);
    if (!loads.empty()) {
      view.Put(key, EncodeHeadTableImage(loads.front()));
    } else if (image) {
      view.Delete(key);
    }
  }
}

std::map<std::string, std::string> ExpectedHeadTableImages(RowTransaction& rows) {
  std::map<std::string, std::string> images;
  const auto head = rows.LatestSnapshot();
  if (!head) return images;
  const auto tags = ReadLakeTags(rows, "ducklake_tag", false, head->snapshot_id, true);
  for (const auto& load : ReadLakeTableLoads(rows, head->snapshot_id, true, tags, std::nullopt)) {
    images.emplace(HeadTableImageKey(load.table.id).Encode(), EncodeHeadTableImage(load));
  }
  return images;
}

}  // namespace moraine::commit
