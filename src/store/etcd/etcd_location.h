#pragma once

// An etcd store location, "etcd://host:port[,host:port...]/<prefix>": the
// cluster's client endpoints and the lake's name inside the cluster. Every key
// of the lake lives under "<prefix>/", so one cluster can hold many lakes, and
// an etcd role with a permission on that one prefix is all a lake needs.
// "etcds://" is the same over TLS (store/etcd/etcd_security.h has the material).
//
// A catalog nested in a lake (another METADATA_SCHEMA) is at
// "<prefix>/s/<name>", inside its lake's prefix: that form is the only one a
// prefix with '/' may take.
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the instance to itself.

#include <string>
#include <string_view>
#include <vector>

namespace moraine::store {

struct EtcdLocation {
  std::vector<std::string> endpoints;  // "host:port", in the order given
  std::string prefix;                  // letters, digits, '.', '_' and '-' only
  bool tls = false;                    // etcds://

  static constexpr std::string_view kScheme = "etcd://";
  static constexpr std::string_view kTlsScheme = "etcds://";
  // Between a lake's prefix and the name of a catalog nested in it.
  static constexpr std::string_view kNestedSeparator = "/s/";

  // True if `location` names an etcd store (by its scheme alone).
  static bool Matches(std::string_view location);

  // Throws InvalidArgumentError naming what is wrong with `location`. The
  // prefix may not contain '/' except as one nested catalog's "/s/<name>": a
  // lake at "a" would otherwise hold a lake at "a/k" inside its key range.
  static EtcdLocation Parse(std::string_view location);
};

}  // namespace moraine::store
