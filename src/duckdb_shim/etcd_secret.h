// The moraine_etcd secret type: how a DuckDB session names the TLS material
// and the etcd user of a lake on etcd, so that nothing secret is in the
// ATTACH string.
//
//   CREATE SECRET lake_writer (TYPE moraine_etcd,
//       ENDPOINTS 'h1:2379,h2:2379,h3:2379',   -- or SCOPE 'etcds://h1:2379,...'
//       CA_FILE 'ca.pem', CERT_FILE 'client.pem', KEY_FILE 'client-key.pem',
//       SERVER_NAME 'etcd.internal', USER 'lake_writer', PASSWORD '...');
//
// Like DuckDB's other secrets it is scoped by location prefix: ENDPOINTS
// gives it the scopes etcd://<endpoints>/ and etcds://<endpoints>/ (endpoints
// in the order the ATTACH names them), SCOPE any prefix of a location; with
// neither it serves every etcd location. An ATTACH of an etcd location takes
// the secret whose scope matches longest; with none, the store layer falls
// back to the MORAINE_ETCD_* environment. PASSWORD is redacted wherever DuckDB
// shows a secret (duckdb_secrets()).
//
// Thread-safety: RegisterEtcdSecretType writes `config`: once per database, as
// it is set up. LookupEtcdSecurity may run on any thread (DuckDB's secret
// manager is thread-safe).
#pragma once

#include <optional>
#include <string>

#include "store/etcd/etcd_security.h"

namespace duckdb {
class ClientContext;
class DBConfig;
}  // namespace duckdb

namespace moraine::duckdb_shim {

// Registers the type and its "config" provider in `config`'s secret manager.
void RegisterEtcdSecretType(duckdb::DBConfig& config);

// The settings of the moraine_etcd secret that best matches `location`, or
// nothing (no match, or not an etcd location). Throws duckdb exceptions for a
// secret that cannot be read.
std::optional<store::EtcdSecurity> LookupEtcdSecurity(duckdb::ClientContext& context,
                                                      const std::string& location);

}  // namespace moraine::duckdb_shim
