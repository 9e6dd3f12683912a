// moraine's SQL functions, registered in every database moraine is set up in.
//
// Thread-safety: registration writes the database's catalog: once per database,
// as it is set up. The functions then run on any thread, each on stores it
// opens or a lake's thread-safe handle.
#pragma once

namespace duckdb {
class DatabaseInstance;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// moraine_migrate(<store path>) -> (from_format, to_format): upgrades a store
// written in an older format in place (see commit/migrations/store_format.h).
// moraine_raise_catalog_version(<attached lake>, dry_run => BOOLEAN,
// confirm => BOOLEAN) -> (from_version, to_version): raises the DuckLake
// catalog version a store serves (see commit/migrations/catalog_version_raise.h).
// Protected tags (commit/tags/tag_book.h), each move one commit of its own:
//   moraine_tag(<lake>, <name>, snapshot => BIGINT, author => VARCHAR) and
//   moraine_untag(<lake>, <name>) -> (name, snapshot_id);
//   moraine_tags(<lake>, history => BOOLEAN) (tools/tag_table.h);
//   moraine_tag_snapshot(<lake>, <name>) -> BIGINT, a scalar.
// Backups (tools/store_backup.h): moraine_backup(<lake>, <repository>) ->
// (backup_id, snapshot_id, keys, bytes, bytes_copied, hold), held until
// moraine_release_backup(<lake>, <repository>, id => BIGINT) -> (released).
// Reverts (duckdb_shim/revert_functions.h): moraine_rollback and moraine_undrop.
// The store tools (src/tools) on an attached lake, read-only:
//   moraine_column_lineage(<lake>, <table>, <column or dotted nested path>)
//   moraine_schema(<lake>, <table>, at => BIGINT), moraine_log(<lake>),
//   moraine_verify(<lake>) -> (invariant, key, problem), moraine_inspect(<lake>).
void RegisterSqlFunctions(duckdb::DatabaseInstance& database);

}  // namespace moraine::duckdb_shim
