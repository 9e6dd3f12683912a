#include "catalog/catalog_state.h"

#include <algorithm>

#include "store/error.h"

namespace moraine::catalog {

const ColumnRecord* TableState::FindChild(Id parent, const std::string& name) const {
  const Id* id = column_names.Find({parent, name});
  return id ? columns.Find(*id) : nullptr;
}

const ColumnRecord* TableState::FindColumn(const ColumnPath& path) const {
  Id parent = kTopLevel;
  const ColumnRecord* column = nullptr;
  for (const auto& name : path) {
    column = FindChild(parent, name);
    if (!column) return nullptr;
    parent = column->column_id();
  }
  return column;
}

std::vector<const ColumnRecord*> TableState::Children(Id parent) const {
  std::vector<const ColumnRecord*> children;
  const ColumnNameKey lower{parent, std::string()};
  const ColumnNameKey upper{parent + 1, std::string()};
  column_names.ForEachInRange(lower, upper, [&](const ColumnNameKey&, Id id) {
    children.push_back(columns.Find(id));
    return true;
  });
  std::sort(children.begin(), children.end(), [](const ColumnRecord* a, const ColumnRecord* b) {
    return a->column_order() != b->column_order() ? a->column_order() < b->column_order()
                                                  : a->column_id() < b->column_id();
  });
  return children;
}

std::vector<Id> TableState::Subtree(Id column_id) const {
  std::vector<Id> ids{column_id};
  for (size_t next = 0; next < ids.size(); ++next) {
    for (const ColumnRecord* child : Children(ids[next])) ids.push_back(child->column_id());
  }
  return ids;
}

Id TableState::MaxColumnId() const {
  const Id* last = columns.LastKey();
  return last ? *last : 0;
}

size_t TableState::TopLevelColumnCount() const {
  size_t count = 0;
  column_names.ForEachInRange({kTopLevel, std::string()}, {kTopLevel + 1, std::string()},
                              [&](const ColumnNameKey&, Id) {
                                ++count;
                                return true;
                              });
  return count;
}

const SchemaRecord* CatalogState::FindSchema(const std::string& name) const {
  const SchemaRecord* found = nullptr;
  schemas_.ForEach([&](Id, const SchemaRecord& schema) {
    if (schema.schema_name() == name) found = &schema;
    return found == nullptr;
  });
  return found;
}

const TableState* CatalogState::FindTable(Id schema_id, const std::string& name) const {
  const TableState* found = nullptr;
  tables_.ForEach([&](Id, const TableState& table) {
    if (table.record.schema_id() == schema_id && table.record.table_name() == name) {
      found = &table;
    }
    return found == nullptr;
  });
  return found;
}

namespace {

// Pointers to every value of `map`, in key order.
template <class Map, class Value>
std::vector<const Value*> ValuesOf(const Map& map) {
  std::vector<const Value*> result;
  map.ForEach([&](Id, const Value& value) {
    result.push_back(&value);
    return true;
  });
  return result;
}

}  // namespace

std::vector<const SchemaRecord*> CatalogState::Schemas() const {
  return ValuesOf<decltype(schemas_), SchemaRecord>(schemas_);
}

std::vector<const TableState*> CatalogState::Tables() const {
  return ValuesOf<decltype(tables_), TableState>(tables_);
}

std::vector<const TableState*> CatalogState::TablesOf(Id schema_id) const {
  std::vector<const TableState*> result;
  for (const TableState* table : Tables()) {
    if (table->record.schema_id() == schema_id) result.push_back(table);
  }
  return result;
}

void CatalogState::PutSchema(const SchemaRecord& schema) {
  schemas_.Set(schema.schema_id(), schema);
}

void CatalogState::EraseSchema(Id schema_id) { schemas_.Erase(schema_id); }

TableState CatalogState::CopyOfTable(Id table_id) const {
  if (const TableState* existing = tables_.Find(table_id)) return *existing;
  // Columns and files may arrive before their table record; start it empty.
  TableState state;
  state.record.set_table_id(table_id);
  return state;
}

void CatalogState::PutTable(const TableRecord& table) {
  TableState state = CopyOfTable(table.table_id());
  state.record = table;
  tables_.Set(table.table_id(), std::move(state));
}

void CatalogState::EraseTable(Id table_id) { tables_.Erase(table_id); }

void CatalogState::PutColumn(const ColumnRecord& column) {
  TableState state = CopyOfTable(column.table_id());
  if (const ColumnRecord* old = state.columns.Find(column.column_id())) {
    state.column_names.Erase({ParentOf(*old), old->column_name()});
  }
  state.column_names.Set({ParentOf(column), column.column_name()}, column.column_id());
  state.columns.Set(column.column_id(), column);
  tables_.Set(column.table_id(), std::move(state));
}

void CatalogState::EraseColumn(Id table_id, Id column_id) {
  const TableState* existing = tables_.Find(table_id);
  if (!existing) return;
  const ColumnRecord* old = existing->columns.Find(column_id);
  if (!old) return;
  TableState state = *existing;
  state.column_names.Erase({ParentOf(*old), old->column_name()});
  state.columns.Erase(column_id);
  tables_.Set(table_id, std::move(state));
}

void CatalogState::PutDataFile(const DataFileRecord& file) {
  TableState state = CopyOfTable(file.table_id());
  state.data_files.Set(file.data_file_id(), file);
  tables_.Set(file.table_id(), std::move(state));
}

void CatalogState::EraseDataFile(Id table_id, Id data_file_id) {
  const TableState* existing = tables_.Find(table_id);
  if (!existing) return;
  TableState state = *existing;
  state.data_files.Erase(data_file_id);
  tables_.Set(table_id, std::move(state));
}

}  // namespace moraine::catalog
