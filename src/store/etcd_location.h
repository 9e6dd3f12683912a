#pragma once

// An etcd store location, "etcd://host:port[,host:port...]/<prefix>": the
// cluster's client endpoints and the lake's name inside the cluster. Every key
// of the lake lives under "<prefix>/", so one cluster can hold many lakes.

#include <string>
#include <string_view>
#include <vector>

namespace moraine::store {

struct EtcdLocation {
  std::vector<std::string> endpoints;  // "host:port", in the order given
  std::string prefix;                  // letters, digits, '.', '_' and '-' only

  static constexpr std::string_view kScheme = "etcd://";

  // True if `location` names an etcd store (by its scheme alone).
  static bool Matches(std::string_view location);

  // Throws InvalidArgumentError naming what is wrong with `location`. The
  // prefix may not contain '/': a lake at "a" would otherwise hold a lake at
  // "a/b" inside its own key range.
  static EtcdLocation Parse(std::string_view location);
};

}  // namespace moraine::store
