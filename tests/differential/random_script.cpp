#include "differential/random_script.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <utility>

namespace moraine::differential {
namespace {

enum class Kind { kInt8, kInt16, kInt32, kInt64, kFloat, kDouble, kVarchar, kStruct, kList };

// A column's type: a scalar, a struct of scalars, or a list of such structs.
struct Type {
  Kind kind = Kind::kInt32;
  std::vector<std::pair<std::string, Kind>> fields;  // kStruct / kList (of struct)
};

struct Column {
  std::string name;
  Type type;
  std::vector<std::string> former_names;  // for renames back
};

struct Table {
  std::string schema;
  std::string name;
  std::vector<Column> columns;  // columns[0] is `id INTEGER`
  int64_t next_id = 1;
  // Rows or deletions may sit inlined in the catalog (not flushed yet).
  bool inlined = false;
  // A SET TYPE happened while rows were inlined. The stock catalog's flush
  // then fails (an upstream DuckLake limitation), so such a table is never
  // flushed.
  bool unflushable = false;
  // Parquet files the table may have (large inserts, flushes of inlined rows).
  int parquet_files = 0;
};

const char* ScalarName(Kind kind) {
  switch (kind) {
    case Kind::kInt8:
      return "TINYINT";
    case Kind::kInt16:
      return "SMALLINT";
    case Kind::kInt32:
      return "INTEGER";
    case Kind::kInt64:
      return "BIGINT";
    case Kind::kFloat:
      return "FLOAT";
    case Kind::kDouble:
      return "DOUBLE";
    case Kind::kVarchar:
      return "VARCHAR";
    case Kind::kStruct:
    case Kind::kList:
      break;
  }
  return "?";
}

std::string StructName(const std::vector<std::pair<std::string, Kind>>& fields) {
  std::string out = "STRUCT(";
  for (size_t i = 0; i < fields.size(); i++) {
    if (i) out += ", ";
    out += fields[i].first + " " + ScalarName(fields[i].second);
  }
  return out + ")";
}

std::string TypeName(const Type& type) {
  if (type.kind == Kind::kStruct) return StructName(type.fields);
  if (type.kind == Kind::kList) return StructName(type.fields) + "[]";
  return ScalarName(type.kind);
}

// The wider types a scalar may be promoted to.
std::vector<Kind> Wider(Kind kind) {
  switch (kind) {
    case Kind::kInt8:
      return {Kind::kInt16, Kind::kInt32, Kind::kInt64};
    case Kind::kInt16:
      return {Kind::kInt32, Kind::kInt64};
    case Kind::kInt32:
      return {Kind::kInt64};
    case Kind::kFloat:
      return {Kind::kDouble};
    default:
      return {};
  }
}

// A value of `kind` computed from the BIGINT expression `i` (exact in every
// type it may later be promoted to).
std::string ScalarValue(Kind kind, const std::string& row, uint64_t salt) {
  const std::string s = std::to_string(salt % 97);
  const std::string i = "(" + row + ")";
  switch (kind) {
    case Kind::kInt8:
      return "((" + i + " * 7 + " + s + ") % 100)::TINYINT";
    case Kind::kInt16:
      return "((" + i + " * 131 + " + s + ") % 30000)::SMALLINT";
    case Kind::kInt32:
      return "(" + i + " * 100003 + " + s + ")::INTEGER";
    case Kind::kInt64:
      return "(" + i + " * 10000000019 + " + s + ")::BIGINT";
    case Kind::kFloat:
      return "((" + i + " + " + s + ") / 4)::FLOAT";
    case Kind::kDouble:
      return "((" + i + " - " + s + ") / 8)::DOUBLE";
    case Kind::kVarchar:
      return "'v" + s + "_' || " + i;
    case Kind::kStruct:
    case Kind::kList:
      break;
  }
  return "NULL";
}

std::string StructValue(const std::vector<std::pair<std::string, Kind>>& fields,
                        const std::string& i, uint64_t salt) {
  std::string out = "{";
  for (size_t f = 0; f < fields.size(); f++) {
    if (f) out += ", ";
    out += "'" + fields[f].first + "': " + ScalarValue(fields[f].second, i, salt + f);
  }
  return out + "}";
}

std::string Value(const Type& type, const std::string& i, uint64_t salt) {
  std::string value;
  if (type.kind == Kind::kStruct) {
    value = StructValue(type.fields, i, salt);
  } else if (type.kind == Kind::kList) {
    value = "[" + StructValue(type.fields, i, salt) + ", " +
            StructValue(type.fields, i + " + 1", salt + 1) + "]";
  } else {
    value = ScalarValue(type.kind, i, salt);
  }
  // Some NULLs, at rows that depend on the salt.
  return "CASE WHEN (" + i + " + " + std::to_string(salt % 5) + ") % 5 = 0 THEN NULL ELSE " +
         value + " END";
}

class Generator {
 public:
  Generator(uint64_t seed, bool avoid_known_divergences)
      : rng_(seed), avoid_known_divergences_(avoid_known_divergences) {}

  std::vector<std::string> Generate(size_t count) {
    std::vector<std::string> out;
    size_t attempts = 0;
    while (out.size() < count && attempts++ < count * 50) {
      if (auto statement = Next()) out.push_back(*statement);
    }
    return out;
  }

 private:
  uint64_t Pick(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Chance(int percent) { return static_cast<int>(Pick(100)) < percent; }
  template <typename T>
  T& PickOf(std::vector<T>& values) {
    return values[Pick(values.size())];
  }

  std::string Fresh(const char* prefix) { return prefix + std::to_string(++names_); }

  std::string Name(const Table& table) const { return "LAKE." + table.schema + "." + table.name; }

  Kind RandomScalar() {
    static constexpr Kind kScalars[] = {Kind::kInt8,  Kind::kInt16,  Kind::kInt32,  Kind::kInt64,
                                        Kind::kFloat, Kind::kDouble, Kind::kVarchar};
    return kScalars[Pick(7)];
  }

  Type RandomType() {
    Type type;
    const uint64_t roll = Pick(10);
    if (roll < 6) {
      type.kind = RandomScalar();
      return type;
    }
    type.kind = roll < 8 ? Kind::kStruct : Kind::kList;
    const uint64_t fields = 1 + Pick(3);
    for (uint64_t f = 0; f < fields; f++) type.fields.emplace_back(Fresh("f"), RandomScalar());
    return type;
  }

  Table* RandomTable() { return tables_.empty() ? nullptr : &PickOf(tables_); }

  // A column other than id, optionally only of nested kinds.
  Column* RandomColumn(Table& table, bool nested_only) {
    std::vector<Column*> candidates;
    for (size_t c = 1; c < table.columns.size(); c++) {
      const Kind kind = table.columns[c].type.kind;
      if (!nested_only || kind == Kind::kStruct || kind == Kind::kList) {
        candidates.push_back(&table.columns[c]);
      }
    }
    return candidates.empty() ? nullptr : PickOf(candidates);
  }

  bool NameTaken(const Table& table, const std::string& name) const {
    return std::any_of(table.columns.begin(), table.columns.end(),
                       [&](const Column& column) { return column.name == name; });
  }

  static std::string Path(const Column& column) {
    return column.type.kind == Kind::kList ? column.name + ".element" : column.name;
  }

  std::optional<std::string> Next() {
    const uint64_t roll = Pick(100);
    if (tables_.empty() || (roll < 6 && tables_.size() < 4)) return CreateTable();
    if (roll < 8) return CreateSchema();
    if (roll < 10) return DropTable();
    if (roll < 12) return RenameTable();
    if (roll < 20) return AddColumn();
    if (roll < 25) return AddField();
    if (roll < 29) return DropColumn();
    if (roll < 32) return DropField();
    if (roll < 37) return RenameColumn();
    if (roll < 43) return SetType();
    if (roll < 46) return Default();
    if (roll < 60) return InsertSmall();
    if (roll < 68) return InsertLarge();
    if (roll < 74) return Update();
    if (roll < 80) return Delete();
    if (roll < 88) return Flush();
    if (roll < 90) return "CALL ducklake_merge_adjacent_files('LAKE')";
    // Its result lists the expired snapshots: select all but their times.
    if (roll < 91) {
      return "SELECT snapshot_id, schema_version, changes FROM ducklake_expire_snapshots('LAKE', "
             "versions => [" +
             std::to_string(1 + Pick(snapshots_ + 1)) + "])";
    }
    if (roll < 92) return "CALL ducklake_cleanup_old_files('LAKE', cleanup_all => true)";
    if (roll < 94) return Comment();
    if (roll < 96) return ViewChange();
    if (roll < 98) return MacroChange();
    return PartitionChange();
  }

  // Views select constants only: the harness reads tables, and a view over a
  // table column would break on a later drop or rename for reasons of its own.
  std::optional<std::string> ViewChange() {
    snapshots_++;
    const uint64_t roll = Pick(10);
    if (views_.empty() || roll < 4) {
      views_.push_back("LAKE." + PickOf(schemas_) + "." + Fresh("v"));
      return "CREATE VIEW " + views_.back() + " AS SELECT " + std::to_string(Pick(100)) +
             " AS a, 'x" + std::to_string(Pick(100)) + "' AS b";
    }
    std::string& view = PickOf(views_);
    if (roll < 6) {
      return "CREATE OR REPLACE VIEW " + view + " AS SELECT " + std::to_string(Pick(100)) + " AS a";
    }
    if (roll < 8) return "COMMENT ON VIEW " + view + " IS 'view " + std::to_string(Pick(100)) + "'";
    const std::string sql = "DROP VIEW " + view;
    views_.erase(std::find(views_.begin(), views_.end(), view));
    return sql;
  }

  std::optional<std::string> MacroChange() {
    snapshots_++;
    if (macros_.empty() || Chance(60)) {
      macros_.push_back("LAKE." + PickOf(schemas_) + "." + Fresh("m"));
      if (Chance(50)) {
        return "CREATE MACRO " + macros_.back() + "(a, b := " + std::to_string(Pick(10)) +
               ") AS a * " + std::to_string(1 + Pick(5)) + " + b";
      }
      return "CREATE MACRO " + macros_.back() + "(n) AS TABLE SELECT range AS i FROM range(n)";
    }
    const size_t index = Pick(macros_.size());
    const std::string sql = "DROP MACRO " + macros_[index];
    macros_.erase(macros_.begin() + static_cast<std::ptrdiff_t>(index));
    return sql;
  }

  // bucket() keeps the number of files an insert writes small; id never
  // changes type and is never dropped.
  std::optional<std::string> PartitionChange() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    snapshots_++;
    if (Chance(30)) return "ALTER TABLE " + Name(*table) + " RESET PARTITIONED BY";
    return "ALTER TABLE " + Name(*table) + " SET PARTITIONED BY (bucket(" +
           std::to_string(2 + Pick(3)) + ", id))";
  }

  std::optional<std::string> CreateSchema() {
    if (schemas_.size() >= 3) return std::nullopt;
    schemas_.push_back(Fresh("s"));
    snapshots_++;
    return "CREATE SCHEMA LAKE." + schemas_.back();
  }

  std::optional<std::string> CreateTable() {
    Table table;
    table.schema = PickOf(schemas_);
    // Reuse a dropped name now and then.
    table.name = !dropped_.empty() && Chance(30) ? PickOf(dropped_) : Fresh("t");
    for (const auto& other : tables_) {
      if (other.schema == table.schema && other.name == table.name) return std::nullopt;
    }
    table.columns.push_back({"id", {Kind::kInt32, {}}, {}});
    const uint64_t extra = 1 + Pick(4);
    for (uint64_t c = 0; c < extra; c++) table.columns.push_back({Fresh("c"), RandomType(), {}});
    std::string sql = "CREATE TABLE " + Name(table) + " (";
    for (size_t c = 0; c < table.columns.size(); c++) {
      if (c) sql += ", ";
      sql += table.columns[c].name + " " + TypeName(table.columns[c].type);
    }
    tables_.push_back(std::move(table));
    snapshots_++;
    return sql + ")";
  }

  std::optional<std::string> DropTable() {
    if (tables_.size() < 2) return std::nullopt;
    const size_t index = Pick(tables_.size());
    const std::string sql = "DROP TABLE " + Name(tables_[index]);
    dropped_.push_back(tables_[index].name);
    tables_.erase(tables_.begin() + static_cast<std::ptrdiff_t>(index));
    snapshots_++;
    return sql;
  }

  std::optional<std::string> RenameTable() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    const std::string name = Fresh("t");
    const std::string sql = "ALTER TABLE " + Name(*table) + " RENAME TO " + name;
    table->name = name;
    snapshots_++;
    return sql;
  }

  std::optional<std::string> AddColumn() {
    Table* table = RandomTable();
    if (!table || table->columns.size() > 8) return std::nullopt;
    Column column{Fresh("c"), RandomType(), {}};
    std::string sql =
        "ALTER TABLE " + Name(*table) + " ADD COLUMN " + column.name + " " + TypeName(column.type);
    if (column.type.kind == Kind::kInt32 && Chance(40)) {
      sql += " DEFAULT " + std::to_string(Pick(1000));
    } else if (column.type.kind == Kind::kVarchar && Chance(40)) {
      sql += " DEFAULT 'd" + std::to_string(Pick(1000)) + "'";
    }
    table->columns.push_back(std::move(column));
    snapshots_++;
    return sql;
  }

  std::optional<std::string> AddField() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, true);
    if (!column || column->type.fields.size() > 5) return std::nullopt;
    const Kind kind = RandomScalar();
    column->type.fields.emplace_back(Fresh("f"), kind);
    snapshots_++;
    return "ALTER TABLE " + Name(*table) + " ADD COLUMN " + Path(*column) + "." +
           column->type.fields.back().first + " " + ScalarName(kind);
  }

  std::optional<std::string> DropColumn() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, false);
    if (!column) return std::nullopt;
    const std::string sql = "ALTER TABLE " + Name(*table) + " DROP COLUMN " + column->name;
    // A dropped name may come back as a new column later.
    dropped_columns_.push_back(column->name);
    table->columns.erase(table->columns.begin() + (column - table->columns.data()));
    snapshots_++;
    return sql;
  }

  std::optional<std::string> DropField() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, true);
    // DuckLake cannot drop a struct's last field.
    if (!column || column->type.fields.size() < 2) return std::nullopt;
    const size_t index = Pick(column->type.fields.size());
    const std::string sql = "ALTER TABLE " + Name(*table) + " DROP COLUMN " + Path(*column) + "." +
                            column->type.fields[index].first;
    column->type.fields.erase(column->type.fields.begin() + static_cast<std::ptrdiff_t>(index));
    snapshots_++;
    return sql;
  }

  std::optional<std::string> RenameColumn() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, false);
    if (!column) return std::nullopt;
    const bool nested = !column->type.fields.empty() && Chance(40);
    if (nested) {
      auto& field = PickOf(column->type.fields);
      const std::string name = Fresh("f");
      const std::string sql = "ALTER TABLE " + Name(*table) + " RENAME COLUMN " + Path(*column) +
                              "." + field.first + " TO " + name;
      field.first = name;
      snapshots_++;
      return sql;
    }
    std::string name;
    // Back to a former name, or a dropped column's name, now and then.
    if (!column->former_names.empty() && Chance(50)) {
      name = column->former_names.back();
    } else if (!dropped_columns_.empty() && Chance(20)) {
      name = PickOf(dropped_columns_);
    } else {
      name = Fresh("c");
    }
    if (NameTaken(*table, name)) return std::nullopt;
    const std::string sql =
        "ALTER TABLE " + Name(*table) + " RENAME COLUMN " + column->name + " TO " + name;
    if (!column->former_names.empty() && column->former_names.back() == name) {
      column->former_names.pop_back();
    } else {
      column->former_names.push_back(column->name);
    }
    column->name = name;
    snapshots_++;
    return sql;
  }

  std::optional<std::string> SetType() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, false);
    if (!column) return std::nullopt;
    if (column->type.kind == Kind::kStruct || column->type.kind == Kind::kList) {
      // Widen one field; sometimes also add a field in the same SET TYPE.
      std::vector<size_t> widenable;
      for (size_t f = 0; f < column->type.fields.size(); f++) {
        if (!Wider(column->type.fields[f].second).empty()) widenable.push_back(f);
      }
      if (widenable.empty()) return std::nullopt;
      auto& field = column->type.fields[PickOf(widenable)];
      auto wider = Wider(field.second);
      field.second = PickOf(wider);
      if (Chance(30)) column->type.fields.emplace_back(Fresh("f"), RandomScalar());
    } else {
      auto wider = Wider(column->type.kind);
      if (wider.empty()) return std::nullopt;
      column->type.kind = PickOf(wider);
    }
    if (table->inlined) table->unflushable = true;
    snapshots_++;
    return "ALTER TABLE " + Name(*table) + " ALTER COLUMN " + column->name + " SET TYPE " +
           TypeName(column->type);
  }

  std::optional<std::string> Default() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    Column* column = RandomColumn(*table, false);
    if (!column) return std::nullopt;
    std::string sql = "ALTER TABLE " + Name(*table) + " ALTER COLUMN " + column->name;
    if (Chance(40)) {
      sql += " DROP DEFAULT";
    } else if (column->type.kind == Kind::kVarchar) {
      sql += " SET DEFAULT 'x" + std::to_string(Pick(100)) + "'";
    } else if (column->type.kind == Kind::kStruct || column->type.kind == Kind::kList) {
      return std::nullopt;
    } else {
      sql += " SET DEFAULT " + std::to_string(Pick(100));
    }
    snapshots_++;
    return sql;
  }

  std::string Insert(Table& table, int64_t rows) {
    std::string columns;
    std::string values;
    const uint64_t salt = Pick(1000);
    for (size_t c = 0; c < table.columns.size(); c++) {
      // Leave some columns out: they get their default.
      if (c > 0 && Chance(15)) continue;
      if (!columns.empty()) {
        columns += ", ";
        values += ", ";
      }
      columns += table.columns[c].name;
      values += c == 0 ? "i::INTEGER" : Value(table.columns[c].type, "i", salt + c);
    }
    const int64_t first = table.next_id;
    table.next_id += rows;
    snapshots_++;
    return "INSERT INTO " + Name(table) + " (" + columns + ") SELECT " + values + " FROM range(" +
           std::to_string(first) + ", " + std::to_string(table.next_id) + ") r(i)";
  }

  std::optional<std::string> InsertSmall() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    table->inlined = true;
    return Insert(*table, 1 + static_cast<int64_t>(Pick(4)));
  }

  std::optional<std::string> InsertLarge() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    table->parquet_files++;
    return Insert(*table, 20 + static_cast<int64_t>(Pick(300)));
  }

  std::optional<std::string> Update() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    if (avoid_known_divergences_ && table->parquet_files > 1) return std::nullopt;
    Column* column = RandomColumn(*table, false);
    if (!column) return std::nullopt;
    table->inlined = true;
    table->parquet_files++;
    snapshots_++;
    return "UPDATE " + Name(*table) + " SET " + column->name + " = " +
           Value(column->type, "id::BIGINT", Pick(1000)) + " WHERE id % " +
           std::to_string(2 + Pick(9)) + " = " + std::to_string(Pick(2));
  }

  std::optional<std::string> Delete() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    table->inlined = true;
    snapshots_++;
    return "DELETE FROM " + Name(*table) + " WHERE id % " + std::to_string(3 + Pick(9)) + " = " +
           std::to_string(Pick(3));
  }

  std::optional<std::string> Flush() {
    const bool all_flushable = std::none_of(tables_.begin(), tables_.end(),
                                            [](const Table& table) { return table.unflushable; });
    if (all_flushable && Chance(60)) {
      for (auto& table : tables_) {
        if (table.inlined) table.parquet_files++;
        table.inlined = false;
      }
      snapshots_++;
      return "CALL ducklake_flush_inlined_data('LAKE')";
    }
    Table* table = RandomTable();
    if (!table || table->unflushable) return std::nullopt;
    if (table->inlined) table->parquet_files++;
    table->inlined = false;
    snapshots_++;
    return "CALL ducklake_flush_inlined_data('LAKE', schema_name => '" + table->schema +
           "', table_name => '" + table->name + "')";
  }

  std::optional<std::string> Comment() {
    Table* table = RandomTable();
    if (!table) return std::nullopt;
    snapshots_++;
    if (Chance(50)) {
      return "COMMENT ON TABLE " + Name(*table) + " IS 'note " + std::to_string(Pick(100)) + "'";
    }
    return "COMMENT ON COLUMN " + Name(*table) + "." + PickOf(table->columns).name + " IS 'col " +
           std::to_string(Pick(100)) + "'";
  }

  std::mt19937_64 rng_;
  bool avoid_known_divergences_;
  uint64_t names_ = 0;
  uint64_t snapshots_ = 0;
  std::vector<std::string> schemas_ = {"main"};
  std::vector<Table> tables_;
  std::vector<std::string> dropped_;
  std::vector<std::string> dropped_columns_;
  std::vector<std::string> views_;   // qualified names
  std::vector<std::string> macros_;  // qualified names
};

}  // namespace

std::vector<std::string> GenerateRandomScript(uint64_t seed, size_t statements,
                                              bool avoid_known_divergences) {
  return Generator(seed, avoid_known_divergences).Generate(statements);
}

}  // namespace moraine::differential
