// A column as a caller defines it: a tree, never a type string to parse.
// Nested types carry DuckLake's marker as their type ("struct", "list", "map")
// and their fields as children: a list has one child named "element", a map
// two named "key" and "value" (RFC 0012, "Nested types").
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the instance to itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace moraine::catalog {

struct ColumnDef {
  std::string name;
  // DuckLake's type name, stored verbatim: "int32", "varchar", "struct", ...
  std::string type;
  std::vector<ColumnDef> children;
  // A literal default; it also becomes the initial default for existing rows.
  std::optional<std::string> default_value;
  bool nulls_allowed = true;

  static ColumnDef Leaf(std::string name, std::string type) {
    return ColumnDef{std::move(name), std::move(type), {}, std::nullopt, true};
  }
  static ColumnDef Struct(std::string name, std::vector<ColumnDef> fields) {
    return ColumnDef{std::move(name), "struct", std::move(fields), std::nullopt, true};
  }
  static ColumnDef List(std::string name, ColumnDef element) {
    element.name = "element";
    return ColumnDef{std::move(name), "list", {std::move(element)}, std::nullopt, true};
  }
  static ColumnDef Map(std::string name, ColumnDef key, ColumnDef value) {
    key.name = "key";
    value.name = "value";
    return ColumnDef{
        std::move(name), "map", {std::move(key), std::move(value)}, std::nullopt, true};
  }
};

// A path names a column by its names from the top level down: {"s", "x"} is
// field x of struct s; {"l", "element"} is the element of list l.
using ColumnPath = std::vector<std::string>;

}  // namespace moraine::catalog
