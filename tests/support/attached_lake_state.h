// What two lakes that ran the same commits must agree on, read through a
// session that has the lake attached (any backend: RocksDB, etcd): the row
// count of every metadata table (file names and times differ from run to run;
// counts do not), the snapshot ids, and every user table's rows.
#pragma once

#include <map>
#include <string>

#include "support/ducklake_session.h"

namespace moraine::test {

inline std::map<std::string, std::string> AttachedLakeState(DuckLakeSession& session,
                                                            const std::string& lake = "lake") {
  std::map<std::string, std::string> state;
  const std::string metadata = "__ducklake_metadata_" + lake;
  for (const auto& row : session.Query("SELECT table_name FROM duckdb_tables() WHERE "
                                       "database_name = '" +
                                       metadata + "' ORDER BY 1")) {
    state[row[0]] = session.Query("SELECT count(*) FROM " + metadata + ".main." + row[0])[0][0];
  }
  for (const auto& row :
       session.Query("SELECT snapshot_id FROM " + metadata + ".ducklake_snapshot ORDER BY 1"))
    state["snapshots"] += row[0] + " ";
  for (const auto& row : session.Query("SELECT table_name FROM duckdb_tables() WHERE "
                                       "database_name = '" +
                                       lake + "' ORDER BY 1")) {
    std::string rows;
    for (const auto& r : session.Query("SELECT * FROM " + lake + "." + row[0] + " ORDER BY ALL")) {
      for (const auto& cell : r) rows += cell + ",";
      rows += ";";
    }
    state[lake + "." + row[0]] = rows;
  }
  return state;
}

}  // namespace moraine::test
