// The DuckLake session the ecosystem tier runs in the stock DuckDB: a table
// with nested columns, an inlined and a 5,000-row insert, every ALTER form of
// DuckLake's schema-evolution docs (seeds/003; the forms of
// tests/e2e/ducklake_schema_evolution_e2e_test.cpp), UPDATE and DELETE; then
// queries whose output is the lake's state: its snapshots, the schema and a
// digest of the rows at every snapshot, and totals at head.
//
// Queries print only integers and strings without quotes, so that the stock
// CLI and Python print the same bytes.
#pragma once

#include <string>
#include <vector>

namespace moraine::test {

struct LakeStep {
  std::string sql;
  std::string table;  // the table's name once the statement committed
};

// Each step commits one snapshot; the lake's first snapshot (0) is its creation.
inline const std::vector<LakeStep>& LakeSteps() {
  static const std::vector<LakeStep> steps = {
      {"CREATE TABLE lake.t (id INTEGER, v INTEGER, name VARCHAR, s STRUCT(a INTEGER, b VARCHAR), "
       "l STRUCT(e INTEGER)[], m MAP(VARCHAR, STRUCT(p INTEGER)))",
       "t"},
      // One row: inlined into the catalog.
      {"INSERT INTO lake.t VALUES (1, 10, 'one', {'a': 1, 'b': 'b1'}, [{'e': 1}], "
       "MAP {'k': {'p': 1}})",
       "t"},
      // 5,000 rows: a Parquet file.
      {"INSERT INTO lake.t SELECT i, i * 10, 'n' || i, {'a': i, 'b': 'b' || i}, [{'e': i}], "
       "MAP {'k': {'p': i}} FROM range(2, 5002) r(i)",
       "t"},
      {"ALTER TABLE lake.t ADD COLUMN c INTEGER", "t"},
      {"ALTER TABLE lake.t ADD COLUMN d VARCHAR DEFAULT 'dflt'", "t"},
      {"ALTER TABLE lake.t DROP COLUMN name", "t"},
      {"ALTER TABLE lake.t ALTER COLUMN v SET DEFAULT 6 * 7", "t"},
      {"ALTER TABLE lake.t RENAME COLUMN v TO w", "t"},
      {"ALTER TABLE lake.t ALTER COLUMN w SET TYPE BIGINT", "t"},
      {"ALTER TABLE lake.t ALTER COLUMN c SET DEFAULT -1", "t"},
      {"ALTER TABLE lake.t ALTER COLUMN d DROP DEFAULT", "t"},
      {"ALTER TABLE lake.t ADD COLUMN s.f INTEGER", "t"},
      {"ALTER TABLE lake.t RENAME COLUMN s.a TO x", "t"},
      {"ALTER TABLE lake.t DROP COLUMN s.b", "t"},
      {"ALTER TABLE lake.t ALTER COLUMN s SET TYPE STRUCT(x BIGINT, f INTEGER, h VARCHAR)", "t"},
      {"ALTER TABLE lake.t ADD COLUMN l.element.f INTEGER", "t"},
      {"ALTER TABLE lake.t RENAME COLUMN l.element.e TO e2", "t"},
      {"ALTER TABLE lake.t ADD COLUMN m.value.q VARCHAR", "t"},
      {"ALTER TABLE lake.t ADD COLUMN s2 STRUCT(p INTEGER, q INTEGER)", "t"},
      {"ALTER TABLE lake.t DROP COLUMN s2", "t"},
      {"ALTER TABLE lake.t RENAME TO t2", "t2"},
      // Under the evolved schema: w takes its default 42, c -1, d none.
      {"INSERT INTO lake.t2 (id, s) VALUES (6000, {'x': 5000000000, 'f': 6, 'h': 'h'})", "t2"},
      {"UPDATE lake.t2 SET c = id, d = 'upd' WHERE id <= 10", "t2"},
      {"DELETE FROM lake.t2 WHERE id % 7 = 0", "t2"},
  };
  return steps;
}

inline std::string LakeWrites() {
  std::string sql;
  for (const auto& step : LakeSteps()) sql += step.sql + ";\n";
  return sql;
}

// The head totals, for the assertions that do not compare two runs.
constexpr const char* kHeadTotals =
    "SELECT count(*) AS n, sum(w) AS w, count(c) AS c, count(d) AS d, sum(s.x) AS x FROM lake.t2";

inline std::string LakeQueries() {
  std::string sql =
      "SELECT snapshot_id, schema_version, changes::VARCHAR AS changes FROM lake.snapshots() "
      "ORDER BY snapshot_id;\n";
  const auto& steps = LakeSteps();
  for (size_t i = 0; i < steps.size(); i++) {
    const std::string snapshot = std::to_string(i + 1);
    const std::string at =
        "(SELECT * FROM lake." + steps[i].table + " AT (VERSION => " + snapshot + "))";
    sql += "SELECT " + snapshot +
           " AS snapshot, string_agg(column_name || ' ' || column_type, '; ') AS schema "
           "FROM (DESCRIBE " +
           at + ");\n";
    sql += "SELECT " + snapshot +
           " AS snapshot, count(*) AS n, md5(string_agg(r::VARCHAR, '|' ORDER BY r.id)) AS digest "
           "FROM " +
           at + " AS r;\n";
  }
  sql += std::string(kHeadTotals) + ";\n";
  sql +=
      "SELECT (SELECT count(*) FROM __ducklake_metadata_lake.ducklake_data_file) AS data_files, "
      "(SELECT count(*) FROM __ducklake_metadata_lake.ducklake_delete_file) AS delete_files;\n";
  return sql;
}

}  // namespace moraine::test
