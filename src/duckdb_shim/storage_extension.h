// The moraine StorageExtension: how DuckDB reaches a moraine catalog through
// `ATTACH '<path>' (TYPE moraine)` and DuckLake's `ducklake:moraine:<path>`.
#pragma once

namespace duckdb {
class DBConfig;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// Registers the `moraine` storage extension in a database configuration.
// Must run before the database is opened, so every ATTACH can find it.
void RegisterStorageExtension(duckdb::DBConfig& config);

}  // namespace moraine::duckdb_shim
