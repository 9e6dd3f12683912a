// The moraine StorageExtension: how DuckDB reaches a moraine catalog through
// `ATTACH '<path>' (TYPE moraine)` and DuckLake's `ducklake:moraine:<path>`.
//
// Thread-safety: registration writes `config`, so it runs once per database as
// the database is set up (see below); the extension then serves ATTACHes from
// any thread.
#pragma once

namespace duckdb {
class DBConfig;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// Called at every ATTACH of a moraine catalog, after the catalog is open and
// before any transaction reads it. DuckLake attaches its metadata catalog
// after it is loaded and before it reads it, so this is where a layer above
// (the DuckLake adapter's native manager) learns of a DuckLake whose load it
// did not see.
using AttachHook = void (*)();

// Registers the `moraine` storage extension in a database configuration,
// before the database is opened (the host) or as moraine loads into it (the
// loadable extension), so every later ATTACH finds it. `on_attach` may be null.
void RegisterStorageExtension(duckdb::DBConfig& config, AttachHook on_attach = nullptr);

}  // namespace moraine::duckdb_shim
