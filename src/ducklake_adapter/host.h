// A DuckDB database with moraine registered and the pinned DuckLake loaded:
// the environment every moraine session, test and tool runs in.
//
// Thread-safety: HostOptions is plain data. Once a Host is built, any thread
// may call Connect and database() (a DuckDB database takes connections from any
// thread); a connection is used by one thread at a time.
#pragma once

#include <memory>
#include <string>

namespace duckdb {
class DuckDB;
class Connection;
}  // namespace duckdb

namespace moraine::ducklake_adapter {

struct HostOptions {
  // A DuckDB database file for the session itself; empty means in memory.
  std::string database_path;
  // Path of the DuckLake extension binary; empty means the pinned build-time default
  // (overridable through the MORAINE_DUCKLAKE_EXTENSION environment variable).
  std::string ducklake_extension;
};

class Host {
 public:
  explicit Host(const HostOptions& options = {});
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  duckdb::DuckDB& database() { return *database_; }
  // A new connection; DuckLake is already loaded in the database.
  std::unique_ptr<duckdb::Connection> Connect();

  // The DuckLake binary this host loads.
  static std::string DefaultDuckLakeExtension();

 private:
  std::unique_ptr<duckdb::DuckDB> database_;
};

}  // namespace moraine::ducklake_adapter
