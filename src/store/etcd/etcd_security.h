#pragma once

// How a handle proves who it is to an etcd cluster and checks who the cluster
// is: TLS material (a location's etcds:// scheme turns TLS on) and an etcd
// user. Where the settings come from is the caller's business (a DuckDB
// secret of type moraine_etcd, or the environment: FromEnvironment); the
// store only uses them.
//
// - ca_file: the CA bundle the members' certificates must chain to; empty:
//   the system's trust store.
// - cert_file, key_file: a client certificate and its key (both or neither),
//   for a cluster started with --client-cert-auth. With etcd's auth on and no
//   user given, the certificate's common name is the etcd user.
// - server_name: the name the members' certificates must carry, when it is
//   not the host of the endpoint (e.g. endpoints given by IP address).
// - user, password: an etcd user, exchanged for an auth token when the
//   handle opens and again whenever etcd no longer knows the token.
//
// The password is never part of a message, a log line or an identity string.
// Thread-safety: a plain value: copyable, safe to read from any thread.

#include <array>
#include <functional>
#include <string>
#include <string_view>

namespace moraine::store {

struct EtcdSecurity {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;
  std::string user;
  std::string password;

  // The fields' names, as settings of a moraine_etcd secret spell them.
  static constexpr std::array<std::string_view, 6> kSettingNames = {
      "ca_file", "cert_file", "key_file", "server_name", "user", "password"};

  // Every field from `setting(name)`, for each of kSettingNames.
  static EtcdSecurity FromSettings(
      const std::function<std::string(std::string_view name)>& setting);

  // The same from the environment variables MORAINE_ETCD_<NAME>:
  // MORAINE_ETCD_CA_FILE, MORAINE_ETCD_CERT_FILE, MORAINE_ETCD_KEY_FILE,
  // MORAINE_ETCD_SERVER_NAME, MORAINE_ETCD_USER, MORAINE_ETCD_PASSWORD.
  static EtcdSecurity FromEnvironment();

  bool uses_tls_material() const {
    return !ca_file.empty() || !cert_file.empty() || !key_file.empty() || !server_name.empty();
  }

  // Throws InvalidArgumentError naming what is missing or contradictory for
  // a location with (`tls`) or without TLS: a certificate without its key, a
  // password without a user, TLS settings on a plain etcd:// location.
  void Check(bool tls, const std::string& display_location) const;

  // Tells handles opened with different credentials apart (so one process
  // never lends a handle opened by one user to another), without the password
  // in clear: a digest of every field.
  std::string Identity() const;
};

}  // namespace moraine::store
