// DuckLake's commit batch, staged without DuckDB's planner where its meaning
// is plain (issue #15). DuckLake writes a commit as one string of statements
// run on its metadata catalog in one transaction; a one-row INSERT's is five:
// INSERTs of constant VALUES into ducklake_snapshot, the inlined data table
// and ducklake_snapshot_changes, and two UPDATEs of the table's stats, one
// from a VALUES list. DuckDB parses, binds, plans and executes each, which was
// more than half of moraine's commit.
//
// The stager parses the batch with DuckDB's parser and stages, in statement
// order, straight into the metadata transaction's RowTransaction:
//   - INSERT INTO t [(columns)] VALUES (...), ... of constants
//     (batch_constants.h);
//   - UPDATE t SET c = <constant | v.c | CAST(v.c AS type)>, ...
//     [FROM v] WHERE <conjunction of c = <constant | v.c>, c != constant,
//     c IS NULL>, where v is the statement's one CTE, a VALUES list with
//     column names, looked up by its first equality (DuckLake's DELETE of
//     inlined rows names each row id in it);
//   - CREATE TABLE [IF NOT EXISTS] t (name type, ...) without constraints,
//     defaults or AS (DuckLake's inlined data tables: one per schema version
//     of a table, as wide as the table), each distinct type bound once.
// t must be a table of the metadata schema the transaction writes. Only
// comparisons of a BIGINT column with integers, a VARCHAR column with
// strings and a BOOLEAN column with booleans are evaluated here; an UPDATE
// whose row would match two rows of v goes to DuckDB. Every other statement,
// and every statement whose constants do not cast here, runs as DuckDB SQL,
// in its place in the order. The rows staged are those DuckDB's INSERT and
// UPDATE operators (moraine_dml.cpp) would stage for the same statement.
//
// Thread-safety: one stager per batch, on the thread that runs the batch.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "commit/rows/row_transaction.h"
#include "duckdb/common/enums/on_create_conflict.hpp"
#include "duckdb/main/query_result.hpp"
#include "duckdb_shim/catalog_store.h"
#include "ducklake_adapter/inlined_table_ddl.h"

namespace duckdb {
class ClientContext;
class SQLStatement;
}  // namespace duckdb

namespace moraine::duckdb_shim {
class MoraineCatalog;
}  // namespace moraine::duckdb_shim

namespace moraine::ducklake_adapter {

class CommitBatchStager {
 public:
  // Runs SQL on the metadata connection, as DuckLake's Query(query) does.
  using SqlRunner = std::function<duckdb::unique_ptr<duckdb::QueryResult>(std::string)>;
  struct Counts {
    uint64_t staged = 0;  // statements staged here
    uint64_t sql = 0;     // statements left to DuckDB
  };

  // `context`: the metadata connection; `catalog` and `where`: the moraine
  // catalog and the store of the metadata schema DuckLake writes.
  CommitBatchStager(duckdb::ClientContext& context, duckdb_shim::MoraineCatalog& catalog,
                    duckdb_shim::CatalogStore where);

  // Runs every statement of `batch` (placeholders already substituted), in
  // order. Returns the last statement's result, or the first error as an
  // error result (the statements after it are not run); never throws for a
  // statement's failure, as DuckDB's Query does not.
  duckdb::unique_ptr<duckdb::QueryResult> Run(const std::string& batch, const SqlRunner& run_sql,
                                              Counts& counts);

 private:
  // Stages `statement` if it is one of the plain forms; false (nothing
  // staged) if DuckDB must run it. Throws what the RowTransaction throws.
  bool TryStage(const duckdb::SQLStatement& statement);
  bool TryStageInsert(const duckdb::SQLStatement& statement);
  bool TryStageUpdate(const duckdb::SQLStatement& statement);
  bool TryStageCreateTable(const duckdb::SQLStatement& statement);
  bool StageInlinedTableDdl(const InlinedTableDdl& ddl);
  // Creates table `spec` in `catalog`.`schema` if that is the metadata
  // schema this stager writes; false (nothing staged) otherwise.
  bool StageTableCreate(const std::string& catalog, const std::string& schema,
                        commit::TableSpec spec, duckdb::OnCreateConflict on_conflict);
  // The name DuckDB's binder gives the type `written` (as the statement
  // wrote it), as CREATE TABLE through DuckDB would store it; each distinct
  // type is bound once per batch (a wide table repeats a few). nullopt when
  // the binder refuses it.
  std::optional<std::string> BoundTypeName(const std::string& written);

  duckdb::ClientContext& context_;
  duckdb_shim::MoraineCatalog& catalog_;
  duckdb_shim::CatalogStore where_;
  std::map<std::string, std::string> bound_type_names_;
};

}  // namespace moraine::ducklake_adapter
