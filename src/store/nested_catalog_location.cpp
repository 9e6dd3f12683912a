#include "store/nested_catalog_location.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "store/error.h"
#include "store/etcd/etcd_location.h"
#include "store/rocksdb/memory_env.h"

namespace moraine::store {
namespace {

constexpr std::string_view kDirectory = "schemas";

std::string EncodeName(std::string_view schema) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string encoded;
  for (char raw : schema) {
    const auto c = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(raw)));
    if (std::islower(c) || std::isdigit(c) || c == '_') {
      encoded += static_cast<char>(c);
    } else {
      encoded += '-';
      encoded += kHex[c >> 4];
      encoded += kHex[c & 0xF];
    }
  }
  return encoded;
}

}  // namespace

std::string NestedCatalogLocation(const std::string& root, std::string_view schema) {
  if (schema.empty()) throw InvalidArgumentError("a metadata schema needs a name");
  const std::string name = EncodeName(schema);
  if (root == kMemoryScheme) {
    throw InvalidArgumentError(
        "a private in-memory moraine store (memory://) holds the catalog of one metadata "
        "schema; name the store (memory://<name>) to keep the catalog of schema '" +
        std::string(schema) + "' beside it");
  }
  if (EtcdLocation::Matches(root)) {
    const std::string nested = root + std::string(EtcdLocation::kNestedSeparator) + name;
    EtcdLocation::Parse(nested);  // refuses a prefix grown too long
    return nested;
  }
  if (root.starts_with(kMemoryScheme)) return root + "/" + std::string(kDirectory) + "/" + name;
  return (std::filesystem::path(root) / kDirectory / name).string();
}

std::optional<std::string> LegacyNestedCatalogLocation(const std::string& root,
                                                       std::string_view schema) {
  if (!EtcdLocation::Matches(root) || schema.empty()) return std::nullopt;
  return root + "." + std::string(kDirectory) + "." + EncodeName(schema);
}

std::vector<std::string> ListNestedCatalogLocations(const std::string& root) {
  std::vector<std::string> locations;
  if (root.starts_with(kMemoryScheme) || EtcdLocation::Matches(root)) return locations;
  const auto directory = std::filesystem::path(root) / kDirectory;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.is_directory()) locations.push_back(entry.path().string());
  }
  std::sort(locations.begin(), locations.end());
  return locations;
}

}  // namespace moraine::store
