// `moraine schema PATH TABLE [--at SNAPSHOT]`: a table's columns as DuckLake
// reconstructs them at a snapshot (the column versions with begin <= S < end),
// nested fields as a tree in pre-order under their parent.
#pragma once

#include <optional>
#include <string>

#include "catalog/records.h"
#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

// (field_id, name, path, type, nullable, default_value, initial_default,
// parent_field_id, since_snapshot): `name` is indented two spaces per level of
// nesting, `path` is dotted from the top level. `at` nullopt: the head.
// Throws store::NotFoundError for a snapshot beyond the head or no longer held,
// and for a table not live at that snapshot.
ToolTable SchemaAt(const store::KvSnapshot& snapshot, const std::string& table,
                   std::optional<catalog::Id> at);

}  // namespace moraine::tools
