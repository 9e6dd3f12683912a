// What differs between the DuckDB releases the shim compiles against (1.5.x
// and 2.0.x), in one place, so that the shim's code reads the same for all of
// them. MORAINE_DUCKDB_MAJOR comes with the release's headers
// (cmake/DuckDBStatic.cmake).
//
// DuckDB 2.0 names catalog entries with duckdb::Identifier (a string that
// compares case-insensitively and converts to and from std::string only
// explicitly) where 1.5 used std::string; AsName and Text convert at the edge.
// DataChunk's cardinality setter was renamed (and its SetValue deprecated:
// the shim sets cells through the chunk's vectors in every release).
//
// Thread-safety: stateless functions.
#pragma once

#include <string>

#include "duckdb/common/types/data_chunk.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/common/types/vector.hpp"
#include "duckdb/function/table_function.hpp"
#include "duckdb/parser/parsed_data/create_schema_info.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/parser/parsed_data/drop_info.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"

#ifndef MORAINE_DUCKDB_MAJOR
#error "MORAINE_DUCKDB_MAJOR is set with the DuckDB headers (cmake/DuckDBStatic.cmake)"
#endif

#if MORAINE_DUCKDB_MAJOR >= 2
#include "duckdb/common/identifier.hpp"
#endif

namespace moraine::duckdb_shim {

#if MORAINE_DUCKDB_MAJOR >= 2
// The type DuckDB names schemas, tables and columns with.
using EntryName = duckdb::Identifier;
inline const std::string& Text(const duckdb::Identifier& name) { return name.GetIdentifierName(); }
#else
using EntryName = std::string;
#endif
inline const std::string& Text(const std::string& name) { return name; }

// A name DuckDB's catalog API takes, from moraine's text.
inline EntryName AsName(const std::string& text) { return EntryName(text); }

// What Catalog::GetDefaultSchema returns.
#if MORAINE_DUCKDB_MAJOR >= 2
using DefaultSchema = duckdb::optional<duckdb::Identifier>;
#else
using DefaultSchema = duckdb::string;
#endif

// The schema a CREATE SCHEMA makes, and naming it.
inline std::string CreatedSchemaName(const duckdb::CreateSchemaInfo& info) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return info.SchemaName().GetIdentifierName();
#else
  return info.schema;
#endif
}
inline void NameCreatedSchema(duckdb::CreateSchemaInfo& info, const std::string& name) {
#if MORAINE_DUCKDB_MAJOR >= 2
  info.SetSchema(duckdb::Identifier(name));
#else
  info.schema = name;
#endif
}

// The entry a DROP names.
inline std::string DroppedName(const duckdb::DropInfo& info) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return info.GetQualifiedName().Name().GetIdentifierName();
#else
  return info.name;
#endif
}

// The table a CREATE TABLE makes.
inline std::string CreatedTableName(const duckdb::CreateTableInfo& info) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return info.GetTableName().GetIdentifierName();
#else
  return info.table;
#endif
}

// The chunk column a bound reference reads.
inline duckdb::idx_t ReferencedColumn(const duckdb::BoundReferenceExpression& reference) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return reference.Index();
#else
  return reference.index;
#endif
}

// Whether `type` carries more than its id (a width, collation, alias, ...).
inline bool HasTypeModifiers(const duckdb::LogicalType& type) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return type.GetTypeInfo().type != duckdb::LogicalTypeInfoType::INVALID_TYPE_INFO ||
         !type.GetTypeInfo().alias.empty();
#else
  return type.AuxInfo() != nullptr;
#endif
}

// A flat vector's values, to write (2.0 hands out const data unless asked).
template <class T>
T* WritableData(duckdb::Vector& vector) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return duckdb::FlatVector::GetDataMutable<T>(vector);
#else
  return duckdb::FlatVector::GetData<T>(vector);
#endif
}
inline duckdb::data_ptr_t WritableBytes(duckdb::Vector& vector) {
#if MORAINE_DUCKDB_MAJOR >= 2
  return duckdb::FlatVector::GetDataMutable(vector);
#else
  return duckdb::FlatVector::GetData(vector);
#endif
}

// Says how many rows of `chunk` are filled.
inline void SetRowCount(duckdb::DataChunk& chunk, duckdb::idx_t rows) {
#if MORAINE_DUCKDB_MAJOR >= 2
  chunk.SetChildCardinality(rows);
#else
  chunk.SetCardinality(rows);
#endif
}

// Declares a parameter `function` takes by name, of the type of `absent`, the
// value the function's bind sees when a call leaves the parameter out (1.5
// leaves it out of the bind's named parameters instead).
inline void AddNamedParameter(duckdb::TableFunction& function, const char* name,
                              const duckdb::Value& absent) {
#if MORAINE_DUCKDB_MAJOR >= 2
  function.GetSignature().AddKeywordOnly(name, absent.type(), absent);
#else
  function.named_parameters[name] = absent.type();
#endif
}

}  // namespace moraine::duckdb_shim
