#include "catalog/catalog_version.h"

namespace moraine::catalog {

std::string_view CatalogVersionName(CatalogVersion version) {
  switch (version) {
    case CatalogVersion::kV1_0:
      return "1.0";
    case CatalogVersion::kV1_1:
      return "1.1";
  }
  return "";
}

std::optional<CatalogVersion> ParseCatalogVersion(const std::optional<std::string>& recorded) {
  if (!recorded || *recorded == "1.0") return CatalogVersion::kV1_0;
  if (*recorded == "1.1" || *recorded == "1.1-dev1") return CatalogVersion::kV1_1;
  return std::nullopt;
}

std::string ServedCatalogVersionLabel(const std::string& recorded) {
  const auto version = ParseCatalogVersion(recorded);
  return version ? std::string(CatalogVersionName(*version)) : recorded;
}

}  // namespace moraine::catalog
