#pragma once

// The one translation of moraine's typed errors into DuckDB exceptions. The
// message passes through unchanged (DuckDB adds its own "IO Error: ",
// "Transaction Error: "...): one sentence, no layer's prefix added to
// another's. The type carries the meaning DuckLake branches on: a conflict is
// a TransactionException whose message says "conflict", which DuckLake retries.

#include "duckdb/common/error_data.hpp"
#include "store/error.h"

namespace moraine::duckdb_shim {

[[noreturn]] void ThrowAsDuckDB(const store::Error& error);

// The same translation as an ErrorData, for paths that report rather than
// throw (a transaction manager's commit).
duckdb::ErrorData AsDuckDBError(const store::Error& error);

}  // namespace moraine::duckdb_shim
