// DuckLake's default data path, for lakes on moraine.
//
// Attached without DATA_PATH, a new DuckLake whose catalog is a DuckDB file
// keeps its data files beside that file, in `<catalog path>.files/`; DuckLake
// derives it for DuckDB files only and refuses a new lake on any other
// catalog. A new lake on moraine gets the same: `ATTACH 'ducklake:moraine:<path>'`
// without DATA_PATH, where no store exists yet (the path is absent or an empty
// directory), attaches as if DATA_PATH '<path>.files' had been given, so its
// data directory sits beside the store. Every other attach passes unchanged:
// an existing lake reads the data path its catalog records (a store that
// holds no lake yet, like memory:// and etcd:// locations, which have no
// "beside", gets DuckLake's own error asking for DATA_PATH).
//
// How: once DuckLake is loaded, moraine wraps the attach function of
// DuckLake's storage extension (DuckDB's public StorageExtension) with one
// that adds the option in exactly that case.
//
// Thread-safety: DuckLake's own attach function is kept in one process-wide
// atomic, so databases may be set up on several threads at once; call it while
// a database is set up.
// The swap itself is a plain write into DuckDB's config as DuckLake loads,
// like DuckDB's own registration of the storage extension: an ATTACH on
// another connection at that instant races DuckDB's load, not moraine.
#pragma once

namespace duckdb {
class DBConfig;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// Wraps DuckLake's attach now if DuckLake is loaded, and whenever an
// extension finishes loading later (DuckLake loaded or autoloaded after
// moraine). Idempotent; safe to call for any number of databases in one
// process (they share DuckLake's one attach function).
void ProvideDefaultDataPath(duckdb::DBConfig& config);

}  // namespace moraine::duckdb_shim
