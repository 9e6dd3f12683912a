// Finding a table by the name a person types: "table" or "schema.table",
// either among the tables live at one snapshot or among every version the
// store holds (a table since renamed or dropped is still found by its old name).
#pragma once

#include <string>

#include "catalog/catalog_state.h"
#include "store/kv_store.h"

namespace moraine::tools {

// The table so named among those live in `state`. Throws store::NotFoundError
// naming the snapshot when there is none, store::InvalidArgumentError when an
// unqualified name matches tables of several schemas.
const catalog::TableState& FindTableAt(const catalog::CatalogState& state, const std::string& name);

// The id of the table that bore `name` in any version: the live one first,
// otherwise the one that bore it most recently. Throws store::NotFoundError
// when no table ever had that name, store::InvalidArgumentError when several
// live tables of different schemas have it.
catalog::Id FindTableEver(const store::KvSnapshot& snapshot, const std::string& name);

}  // namespace moraine::tools
