// DuckLake's genesis, staged as rows: the 28 fixed tables of catalog version
// 1.0 and the rows DuckLakeMetadataManager::InitializeDuckLake inserts
// (snapshot 0 with its changes `created_schema:"main"`, the options version,
// created_by, data_path and encrypted, schema `main` at path `main/`).
#pragma once

#include <cstdint>
#include <string>

#include "commit/rows/row_transaction.h"

namespace moraine::commit {

// Stages the genesis on `rows`, a transaction on a store with no catalog yet.
// `data_path` is recorded verbatim; created_by names this build (DuckLake
// records its DuckDB build there).
void StageGenesis(RowTransaction& rows, const std::string& data_path, int64_t now_micros);

}  // namespace moraine::commit
