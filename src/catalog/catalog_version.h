// The DuckLake catalog version: the shape of the `ducklake_*` tables
// themselves (which tables exist, which columns each carries). It is an axis
// of its own, independent of a table's schema_version and of the store format
// (RFC 0012): a store records it in the global `version` option and moves it
// only by a deliberate, one-way raise.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace moraine::catalog {

// The shapes this build serves, oldest first; the enumerators order them.
enum class CatalogVersion { kV1_0, kV1_1 };

inline constexpr CatalogVersion kNewestCatalogVersion = CatalogVersion::kV1_1;

// "1.0" or "1.1": the label a store at that version reports.
std::string_view CatalogVersionName(CatalogVersion version);

// The shape a recorded `version` option names. A store that never recorded
// one (nullopt) is at 1.0. "1.1-dev1", the label 1.1 carried while DuckLake
// still developed it, names 1.1. Any other label is a version this build
// cannot order (an older DuckLake's, which DuckLake migrates itself, or a
// newer build's): nullopt.
std::optional<CatalogVersion> ParseCatalogVersion(const std::optional<std::string>& recorded);

// The value the `version` option row is served with: a store reports the
// version whose shape it is served, so a "1.1-dev1" store reads "1.1". Labels
// this build cannot order are served verbatim.
std::string ServedCatalogVersionLabel(const std::string& recorded);

}  // namespace moraine::catalog
