// What moraine's SQL functions share at their edge: a required text
// argument, the store behind an attached lake's name, and the global state
// of a function that acts once when it executes (never at bind, so a
// statement only prepared or explained changes nothing).
//
// Thread-safety: functions of their arguments; the state belongs to one
// execution of one function.
#pragma once

#include <memory>
#include <string>

#include "commit/lake/catalog_caching_store.h"
#include "duckdb/function/table_function.hpp"

namespace moraine::duckdb_shim {

// The text argument `index` of a table function; NULL is refused, naming
// what the function needs there.
std::string Argument(const duckdb::TableFunctionBindInput& input, size_t index,
                     const char* function, const char* what);

// The store behind an attached catalog name: a moraine catalog itself, or a
// DuckLake lake whose metadata catalog (DuckLake names it
// __ducklake_metadata_<lake>) is one. Throws duckdb::InvalidInputException,
// naming `function`, for any other name.
std::shared_ptr<commit::CatalogCachingStore> StoreOfLake(duckdb::ClientContext& context,
                                                         const std::string& name,
                                                         const char* function);

struct RunOnceState : public duckdb::GlobalTableFunctionState {
  bool done = false;
};

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitRunOnce(duckdb::ClientContext&,
                                                                 duckdb::TableFunctionInitInput&);

}  // namespace moraine::duckdb_shim
