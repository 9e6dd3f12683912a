#include "store/etcd/etcd_location.h"

#include <cctype>

#include "store/error.h"

namespace moraine::store {
namespace {

constexpr size_t kMaxPrefixLength = 128;

[[noreturn]] void Refuse(std::string_view location, const std::string& why) {
  throw InvalidArgumentError("the etcd location '" + std::string(location) + "' " + why +
                             "; write it as etcd://host:port[,host:port...]/<prefix> (or "
                             "etcds:// for TLS)");
}

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  int value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  return value >= 1 && value <= 65535;
}

bool ValidPrefixChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

}  // namespace

bool EtcdLocation::Matches(std::string_view location) {
  return location.starts_with(kScheme) || location.starts_with(kTlsScheme);
}

EtcdLocation EtcdLocation::Parse(std::string_view location) {
  if (!Matches(location)) Refuse(location, "does not start with etcd:// or etcds://");
  EtcdLocation parsed;
  parsed.tls = location.starts_with(kTlsScheme);
  std::string_view rest = location.substr((parsed.tls ? kTlsScheme : kScheme).size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) Refuse(location, "names no prefix");
  std::string_view hosts = rest.substr(0, slash);
  parsed.prefix = std::string(rest.substr(slash + 1));
  while (true) {
    const size_t comma = hosts.find(',');
    std::string_view endpoint = hosts.substr(0, comma);
    const size_t colon = endpoint.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || !ValidPort(endpoint.substr(colon + 1))) {
      Refuse(location, "has an endpoint '" + std::string(endpoint) + "' that is not host:port");
    }
    parsed.endpoints.emplace_back(endpoint);
    if (comma == std::string_view::npos) break;
    hosts.remove_prefix(comma + 1);
  }
  if (parsed.prefix.empty()) Refuse(location, "names no prefix");
  if (parsed.prefix.size() > kMaxPrefixLength) Refuse(location, "has a prefix over 128 characters");
  // A nested catalog's "<lake>/s/<name>": each part a valid prefix of its own.
  std::string_view lake = parsed.prefix;
  std::string_view nested;
  if (const size_t at = lake.find(kNestedSeparator); at != std::string_view::npos) {
    nested = lake.substr(at + kNestedSeparator.size());
    lake = lake.substr(0, at);
    if (lake.empty() || nested.empty()) Refuse(location, "names an empty lake or nested catalog");
  }
  for (std::string_view part : {lake, nested}) {
    for (char c : part) {
      if (!ValidPrefixChar(c)) {
        Refuse(location, "has a prefix with a character other than letters, digits, '.', '_', '-'");
      }
    }
  }
  return parsed;
}

}  // namespace moraine::store
