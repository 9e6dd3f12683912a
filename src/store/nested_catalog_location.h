#pragma once

// Where a store keeps the catalogs of further metadata schemas.
//
// DuckLake can keep several lakes in one metadata database, one per schema
// (ATTACH ... (METADATA_SCHEMA 's')). A moraine store serves the catalog of
// the first schema it was created under; the catalog of every other schema is
// a store of its own, nested in the first's location, so that one location
// still names everything:
//   a directory   <dir>/schemas/<encoded name>   (RocksDB ignores the entry)
//   memory://n    memory://n/schemas/<encoded name>
//   etcd://h/p    etcd://h/p/s/<encoded name> (under p's prefix, so a role
//                 scoped to the lake's prefix reaches it, but outside the key
//                 ranges of p's own data, marker, intent and tokens)
// The name is encoded case-insensitively, as DuckDB compares schema names:
// lower-case letters, digits and '_' stay, every other byte becomes "-xx"
// (its two hex digits).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moraine::store {

// The location of the catalog of `schema` nested in the store at `root`.
// Throws InvalidArgumentError for a private in-memory store ("memory://",
// which nothing else can name), an empty name, or an etcd prefix that would
// grow too long.
std::string NestedCatalogLocation(const std::string& root, std::string_view schema);

// Where an etcd lake made before nested catalogs moved under its prefix kept
// the catalog of `schema`: etcd://h/p.schemas.<encoded name>. Such
// a catalog keeps being served from there; new ones are made at
// NestedCatalogLocation. Nothing for other locations.
std::optional<std::string> LegacyNestedCatalogLocation(const std::string& root,
                                                       std::string_view schema);

// The nested catalog locations present in the directory store at `root`, in
// name order; empty for other locations (their nested catalogs are found by
// name alone).
std::vector<std::string> ListNestedCatalogLocations(const std::string& root);

}  // namespace moraine::store
