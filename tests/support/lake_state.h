// A lake in a directory of its own, and the state two serial replays of one
// script must agree on. Shared by the crash and fault tiers, which compare the
// store a crash or an injected fault left with replays that had neither.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "commit/migrations/store_format.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine::test {

// One lake: a store and its data path in a directory of its own.
class Lake {
 public:
  std::string store() const { return dir_.path("lake.moraine"); }
  std::string files() const { return dir_.path("files") + "/"; }
  std::string Attach(const std::string& options = "") const {
    return "ATTACH 'ducklake:moraine:" + store() + "' AS lake (DATA_PATH '" + files() + "'" +
           options + ")";
  }

  void Run(const std::vector<std::string>& statements, size_t count) const {
    DuckLakeSession session;
    session.Run(Attach());
    for (size_t i = 0; i < count; ++i) session.Run(statements[i]);
  }

 private:
  TempDir dir_;
};

// What two serial replays must agree on: the row count of every catalog
// table (file names and times differ from run to run; counts do not), the
// snapshot ids, and the rows of every user table where DuckLake can read them.
inline std::map<std::string, std::string> StateOf(const Lake& lake) {
  std::map<std::string, std::string> state;
  auto store = store::OpenKvStore({.location = lake.store(), .read_only = true});
  state["store format"] =
      std::to_string(commit::ReadStoreFormat(*store->GetSnapshot()).value_or(99));
  store.reset();
  DuckLakeSession session;
  auto attached =
      session.connection().Query("ATTACH '" + lake.store() + "' AS m (TYPE moraine, READ_ONLY)");
  if (attached->HasError()) {
    state["catalog"] = "unreadable";
    return state;
  }
  for (const auto& row : session.Query(
           "SELECT table_name FROM duckdb_tables() WHERE database_name = 'm' ORDER BY 1")) {
    state[row[0]] = session.Query("SELECT count(*) FROM m.main." + row[0])[0][0];
  }
  for (const auto& row :
       session.Query("SELECT snapshot_id FROM m.main.ducklake_snapshot ORDER BY 1"))
    state["snapshots"] += row[0] + " ";
  session.Run("DETACH m");
  auto lake_attached = session.connection().Query(lake.Attach(", READ_ONLY"));
  if (lake_attached->HasError()) return state;  // a raised catalog: the pinned DuckLake refuses it
  for (const auto& row : session.Query(
           "SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake' ORDER BY 1")) {
    std::string rows;
    for (const auto& r : session.Query("SELECT * FROM lake." + row[0] + " ORDER BY ALL")) {
      for (const auto& cell : r) rows += cell + ",";
      rows += ";";
    }
    state["lake." + row[0]] = rows;
  }
  return state;
}

inline std::string Describe(const std::map<std::string, std::string>& state) {
  std::string out;
  for (const auto& [key, value] : state) out += "  " + key + " = " + value.substr(0, 120) + "\n";
  return out;
}

}  // namespace moraine::test
