#include "commit/rows/head_table_image.h"

#include <set>

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
  column.children.reserve(image->children_size());
  for (auto& child : *image->mutable_children()) column.children.push_back(TakeColumn(&child));
  column.tags = TakeTags(image->mutable_tags());
  return column;
}

// The tables whose image rows `view` stages changes to.
std::set<int64_t> TouchedTables(const StagedView& view) {
  std::set<int64_t> tables;
  for (const Kind kind : kImageSourceKinds) {
    view.VisitStagedWrites(
        store::PrefixRange(Subspace::kCurrent, kind),
        [&](std::string_view key, const std::optional<std::string>&) {
          tables.insert(static_cast<int64_t>(store::Key::Decode(key).component(0)));
        });
  }
  return tables;
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
  for (const int64_t table_id : TouchedTables(view)) {
    const auto tags = ReadLakeTags(rows, "ducklake_tag", false, snapshot, true, table_id);
    const auto loads = ReadLakeTableLoads(rows, snapshot, true, tags, table_id);
    const std::string key = HeadTableImageKey(table_id).Encode();
    if (!loads.empty()) {
      view.Put(key, EncodeHeadTableImage(loads.front()));
    } else if (view.Get(key)) {
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
