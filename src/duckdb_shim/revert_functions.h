// The SQL functions of reverts (commit/revert/lake_revert.h), each one commit
// of its own when it executes (never at bind), outside the session's
// transaction, like a tag move: a revert is not undone by a ROLLBACK.
//   moraine_rollback(<lake>, to_snapshot => BIGINT)
//   moraine_undrop(<lake>, '<schema>.<table>' or '<table>' (in main))
// each -> (snapshot_id, ended_versions, revived_versions): the snapshot it
// committed (the head, with zeros, when nothing differed), and how many row
// versions it ended and brought back. The files it would bring back are
// checked on DuckDB's file system first; a missing one refuses the revert.
//
// Thread-safety: registration writes the database's catalog, once per
// database; the functions then run on any thread.
#pragma once

#include "duckdb/main/extension/extension_loader.hpp"

namespace moraine::duckdb_shim {

void RegisterRevertFunctions(duckdb::ExtensionLoader& loader);

}  // namespace moraine::duckdb_shim
