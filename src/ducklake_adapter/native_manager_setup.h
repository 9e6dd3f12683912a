// Sets moraine's native DuckLake metadata manager (native_metadata_manager.h)
// up in a database, the adapter's one entry point for the programs that
// compose it with the storage extension (extension_entry.cpp, the host):
//   - moraine_native_manager(), the table function that says whether the
//     manager is registered in this process, which DuckLake build it serves,
//     why not, and how often it answered;
//   - registration as soon as DuckLake is loaded, before or after moraine (an
//     extension callback, and at once if DuckLake already is).
// The storage extension's attach hook (RegisterStorageExtension's on_attach,
// given NativeMetadataManager::EnsureRegistered) covers a DuckLake whose load
// no callback saw.
//
// Thread-safety: call once per database, while it is being set up.
#pragma once

namespace duckdb {
class DatabaseInstance;
}  // namespace duckdb

namespace moraine::ducklake_adapter {

void SetUpNativeManager(duckdb::DatabaseInstance& database);

}  // namespace moraine::ducklake_adapter
