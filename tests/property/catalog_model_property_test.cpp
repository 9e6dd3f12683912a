// Model-based property test of schema evolution (RFC 0012, "Property-test
// obligations"): arbitrary sequences of verb-path transactions, valid and
// invalid, are applied to a real in-memory catalog and to an independent model
// that restates the rules in plain structs; afterwards the catalog at EVERY
// snapshot the sequence produced must equal the model's recorded state.
//
// The rules the model restates (none of the core's code is reused):
//  - field ids are per table, from 1 in pre-order at CREATE TABLE (struct
//    fields, a list's "element", a map's "key" and "value" included);
//  - ADD COLUMN allocates from max(next_column_id, max live id + 1); the
//    counter a commit leaves is DuckLake's MAX(column_id) over committed
//    versions + 1, so no committed id is ever issued twice;
//  - column_order == column_id when a column is created, and never changes
//    (DuckLake has no operation that reorders columns);
//  - a drop ends the whole subtree; the last top-level column cannot go;
//  - names are unique among siblings only;
//  - every column change opens a new version (begin_snapshot moves);
//  - schema_version advances by exactly 1 per commit with any schema change,
//    never for data file registration; a refused transaction lands nothing.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "commit/verbs/catalog.h"
#include "store/error.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::ColumnPath;
using catalog::Id;
using commit::Transaction;
using store::ErrorCode;

// 1000 sequences of up to 40 transactions take a few seconds; an exported
// RC_PARAMS still wins.
const bool kRapidcheckParamsSet = [] {
  setenv("RC_PARAMS", "max_success=1000", /*overwrite=*/0);
  return true;
}();

// DuckLake's encoding of "no default" (a string, not SQL NULL).
constexpr const char* kNoDefault = "NULL";

// ---------------------------------------------------------------------------
// The model

struct ModelColumn {
  std::string name;
  std::string type;
  Id parent = 0;  // 0: top level
  int64_t order = 0;
  std::string default_value = kNoDefault;
  std::string initial_default;  // "" when the column was created without one
  Id begin = 0;
};

struct ModelFile {
  std::string path;
  int64_t records = 0;
  int64_t bytes = 0;
  Id begin = 0;
};

struct ModelTable {
  std::string name;
  Id begin = 0;
  Id next_column_id = 1;
  std::map<Id, ModelColumn> columns;
  std::map<Id, ModelFile> files;
};

struct ModelState {
  Id snapshot_id = 0;
  Id schema_version = 0;
  Id next_catalog_id = 1;  // genesis: schema `main` holds id 0
  Id next_file_id = 0;
  std::map<Id, ModelTable> tables;
};

// What the model predicts a refused operation throws.
struct ModelError {
  ErrorCode code;
  std::string why;
};

[[noreturn]] void Refuse(ErrorCode code, const std::string& why) { throw ModelError{code, why}; }

// One transaction in flight over a copy of the base state.
struct ModelTxn {
  ModelState state;
  Id snapshot = 0;
  bool changed = false;
  bool schema_changed = false;
  // Tables this transaction created. DuckLake reports such a table as
  // created only, and one created and dropped again in the same
  // transaction leaves nothing (no snapshot, if that is all it did).
  std::set<Id> created;

  void SchemaChange(Id table) { Change(table, true); }
  void Change(Id table, bool schema) {
    if (created.count(table)) return;
    changed = true;
    schema_changed = schema_changed || schema;
  }
  bool Changed() const { return changed || !created.empty(); }
  bool SchemaChanged() const { return schema_changed || !created.empty(); }
};

bool IsNested(const std::string& type) {
  return type == "struct" || type == "list" || type == "map";
}

ModelTable& RequireTable(ModelTxn& m, Id table) {
  auto it = m.state.tables.find(table);
  if (it == m.state.tables.end()) Refuse(ErrorCode::kNotFound, "no table " + std::to_string(table));
  return it->second;
}

Id FindChild(const ModelTable& table, Id parent, const std::string& name) {
  for (const auto& [id, column] : table.columns) {
    if (column.parent == parent && column.name == name) return id;
  }
  return 0;
}

Id Resolve(const ModelTable& table, const ColumnPath& path) {
  Id at = 0;
  for (const auto& name : path) {
    at = FindChild(table, at, name);
    if (at == 0) return 0;
  }
  return at;
}

Id RequireColumn(ModelTxn& m, Id table, const ColumnPath& path) {
  const Id id = Resolve(RequireTable(m, table), path);
  if (id == 0) Refuse(ErrorCode::kNotFound, "no such column");
  return id;
}

Id FindTableByName(const ModelState& state, const std::string& name) {
  for (const auto& [id, table] : state.tables) {
    if (table.name == name) return id;
  }
  return 0;
}

void RequireSchema(const std::string& schema) {
  if (schema != "main") Refuse(ErrorCode::kNotFound, "no schema " + schema);
}

// Checks one column tree depth first, in the order a reader of the definition
// meets its nodes.
void ValidateTree(const ColumnDef& def) {
  if (def.name.empty()) Refuse(ErrorCode::kInvalidArgument, "empty column name");
  if (def.type.empty()) Refuse(ErrorCode::kInvalidArgument, "empty column type");
  const bool nested = IsNested(def.type);
  if (!nested && !def.children.empty()) Refuse(ErrorCode::kInvalidArgument, "leaf with fields");
  if (nested && def.children.empty()) Refuse(ErrorCode::kInvalidArgument, "nested w/o fields");
  std::set<std::string> names;
  for (const auto& child : def.children) {
    if (!names.insert(child.name).second) Refuse(ErrorCode::kConstraint, "duplicate field");
    ValidateTree(child);
  }
}

// Pre-order: a column takes the next id, then its fields recursively.
void PlaceTree(ModelTable& table, Id parent, const ColumnDef& def, Id& next_id, Id snapshot) {
  const Id id = next_id++;
  ModelColumn column;
  column.name = def.name;
  column.type = def.type;
  column.parent = parent;
  column.order = id;
  if (def.default_value) column.default_value = column.initial_default = *def.default_value;
  column.begin = snapshot;
  table.columns[id] = column;
  for (const auto& child : def.children) PlaceTree(table, id, child, next_id, snapshot);
}

void ModelCreateTable(ModelTxn& m, const std::string& schema, const std::string& name,
                      const std::vector<ColumnDef>& defs) {
  RequireSchema(schema);
  if (name.empty()) Refuse(ErrorCode::kInvalidArgument, "empty table name");
  if (defs.empty()) Refuse(ErrorCode::kInvalidArgument, "no columns");
  if (FindTableByName(m.state, name)) Refuse(ErrorCode::kConstraint, "table exists");
  std::set<std::string> names;
  for (const auto& def : defs) {
    if (!names.insert(def.name).second) Refuse(ErrorCode::kConstraint, "duplicate column");
  }
  for (const auto& def : defs) ValidateTree(def);
  const Id id = m.state.next_catalog_id++;
  ModelTable table;
  table.name = name;
  table.begin = m.snapshot;
  Id next_id = 1;
  for (const auto& def : defs) PlaceTree(table, 0, def, next_id, m.snapshot);
  table.next_column_id = next_id;
  m.state.tables[id] = table;
  m.created.insert(id);
}

void ModelDropTable(ModelTxn& m, const std::string& schema, const std::string& name) {
  RequireSchema(schema);
  const Id id = FindTableByName(m.state, name);
  if (!id) Refuse(ErrorCode::kNotFound, "no table " + name);
  m.state.tables.erase(id);
  if (!m.created.erase(id)) m.SchemaChange(id);
}

void ModelRenameTable(ModelTxn& m, const std::string& schema, const std::string& name,
                      const std::string& new_name) {
  RequireSchema(schema);
  const Id id = FindTableByName(m.state, name);
  if (!id) Refuse(ErrorCode::kNotFound, "no table " + name);
  if (new_name.empty()) Refuse(ErrorCode::kInvalidArgument, "empty table name");
  // Renaming a table to its own name collides with itself.
  if (FindTableByName(m.state, new_name)) Refuse(ErrorCode::kConstraint, "table exists");
  m.state.tables[id].name = new_name;
  m.state.tables[id].begin = m.snapshot;
  m.SchemaChange(id);
}

void ModelAddColumn(ModelTxn& m, Id table_id, const ColumnPath& parent_path, const ColumnDef& def) {
  ModelTable& table = RequireTable(m, table_id);
  Id parent = 0;
  if (!parent_path.empty()) {
    parent = Resolve(table, parent_path);
    if (!parent) Refuse(ErrorCode::kNotFound, "no parent column");
    if (table.columns[parent].type != "struct") Refuse(ErrorCode::kInvalidArgument, "not a struct");
  }
  if (def.name.empty()) Refuse(ErrorCode::kInvalidArgument, "empty column name");
  if (FindChild(table, parent, def.name)) Refuse(ErrorCode::kConstraint, "sibling name taken");
  ValidateTree(def);
  const Id max_live = table.columns.empty() ? 0 : table.columns.rbegin()->first;
  Id next_id = std::max(table.next_column_id, max_live + 1);
  PlaceTree(table, parent, def, next_id, m.snapshot);
  table.next_column_id = next_id;
  m.SchemaChange(table_id);
}

void ModelDropColumn(ModelTxn& m, Id table_id, const ColumnPath& path) {
  const Id id = RequireColumn(m, table_id, path);
  ModelTable& table = m.state.tables[table_id];
  if (table.columns[id].parent == 0) {
    size_t top_level = 0;
    for (const auto& [_, column] : table.columns) top_level += column.parent == 0;
    if (top_level <= 1) Refuse(ErrorCode::kInvalidArgument, "last top-level column");
  }
  std::set<Id> doomed{id};
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& [child, column] : table.columns) {
      if (doomed.count(column.parent) && doomed.insert(child).second) grew = true;
    }
  }
  for (Id victim : doomed) table.columns.erase(victim);
  m.SchemaChange(table_id);
}

void ModelRenameColumn(ModelTxn& m, Id table_id, const ColumnPath& path,
                       const std::string& new_name) {
  const Id id = RequireColumn(m, table_id, path);
  ModelTable& table = m.state.tables[table_id];
  ModelColumn& column = table.columns[id];
  if (column.name == new_name) return;  // nothing to change
  if (new_name.empty()) Refuse(ErrorCode::kInvalidArgument, "empty column name");
  if (FindChild(table, column.parent, new_name)) Refuse(ErrorCode::kConstraint, "name taken");
  column.name = new_name;
  column.begin = m.snapshot;
  m.SchemaChange(table_id);
}

void ModelChangeType(ModelTxn& m, Id table_id, const ColumnPath& path, const std::string& type) {
  const Id id = RequireColumn(m, table_id, path);
  if (type.empty()) Refuse(ErrorCode::kInvalidArgument, "empty type");
  ModelColumn& column = m.state.tables[table_id].columns[id];
  if (column.type == type) return;
  column.type = type;
  column.begin = m.snapshot;
  m.SchemaChange(table_id);
}

void ModelSetDefault(ModelTxn& m, Id table_id, const ColumnPath& path,
                     const std::optional<std::string>& literal) {
  const Id id = RequireColumn(m, table_id, path);
  ModelColumn& column = m.state.tables[table_id].columns[id];
  column.default_value = literal.value_or(kNoDefault);
  column.begin = m.snapshot;
  m.SchemaChange(table_id);
}

void ModelRegisterFile(ModelTxn& m, Id table_id, const std::string& path, int64_t records,
                       int64_t bytes) {
  ModelTable& table = RequireTable(m, table_id);
  if (path.empty()) Refuse(ErrorCode::kInvalidArgument, "empty path");
  if (records < 0 || bytes < 0) Refuse(ErrorCode::kInvalidArgument, "negative count");
  table.files[m.state.next_file_id++] = ModelFile{path, records, bytes, m.snapshot};
  m.Change(table_id, false);  // data only: schema_version stays
}

// ---------------------------------------------------------------------------
// Operations: one concrete verb call, applied to either side

enum class OpKind {
  kCreateTable,
  kDropTable,
  kRenameTable,
  kAddColumn,
  kDropColumn,
  kRenameColumn,
  kChangeType,
  kSetDefault,
  kDropDefault,
  kRegisterFile,
};

struct Op {
  OpKind kind = OpKind::kCreateTable;
  std::string schema = "main";
  std::string table_name;  // table verbs address tables by name
  Id table = 0;            // column and data verbs by id
  ColumnPath path;
  std::vector<ColumnDef> defs;
  std::string text;  // new name, type, literal or file path
  int64_t records = 0;
  int64_t bytes = 0;
};

void ApplyReal(const Op& op, Transaction& txn) {
  switch (op.kind) {
    case OpKind::kCreateTable:
      txn.CreateTable(op.schema, op.table_name, op.defs);
      return;
    case OpKind::kDropTable:
      txn.DropTable(op.schema, op.table_name);
      return;
    case OpKind::kRenameTable:
      txn.RenameTable(op.schema, op.table_name, op.text);
      return;
    case OpKind::kAddColumn:
      txn.AddColumn(op.table, op.path, op.defs.front());
      return;
    case OpKind::kDropColumn:
      txn.DropColumn(op.table, op.path);
      return;
    case OpKind::kRenameColumn:
      txn.RenameColumn(op.table, op.path, op.text);
      return;
    case OpKind::kChangeType:
      txn.ChangeColumnType(op.table, op.path, op.text);
      return;
    case OpKind::kSetDefault:
      txn.SetColumnDefault(op.table, op.path, op.text);
      return;
    case OpKind::kDropDefault:
      txn.DropColumnDefault(op.table, op.path);
      return;
    case OpKind::kRegisterFile:
      txn.RegisterDataFile(op.table, op.text, op.records, op.bytes);
      return;
  }
}

void ApplyModel(const Op& op, ModelTxn& m) {
  switch (op.kind) {
    case OpKind::kCreateTable:
      return ModelCreateTable(m, op.schema, op.table_name, op.defs);
    case OpKind::kDropTable:
      return ModelDropTable(m, op.schema, op.table_name);
    case OpKind::kRenameTable:
      return ModelRenameTable(m, op.schema, op.table_name, op.text);
    case OpKind::kAddColumn:
      return ModelAddColumn(m, op.table, op.path, op.defs.front());
    case OpKind::kDropColumn:
      return ModelDropColumn(m, op.table, op.path);
    case OpKind::kRenameColumn:
      return ModelRenameColumn(m, op.table, op.path, op.text);
    case OpKind::kChangeType:
      return ModelChangeType(m, op.table, op.path, op.text);
    case OpKind::kSetDefault:
      return ModelSetDefault(m, op.table, op.path, op.text);
    case OpKind::kDropDefault:
      return ModelSetDefault(m, op.table, op.path, std::nullopt);
    case OpKind::kRegisterFile:
      return ModelRegisterFile(m, op.table, op.text, op.records, op.bytes);
  }
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string JoinPath(const ColumnPath& path) {
  std::string out;
  for (const auto& part : path) out += (out.empty() ? "" : ".") + part;
  return Quote(out);
}

std::string DescribeDef(const ColumnDef& def) {
  std::string out = Quote(def.name) + ":" + Quote(def.type);
  if (!def.children.empty()) {
    out += "{";
    for (size_t i = 0; i < def.children.size(); ++i) {
      out += (i ? "," : "") + DescribeDef(def.children[i]);
    }
    out += "}";
  }
  if (def.default_value) out += "=" + *def.default_value;
  return out;
}

std::string Describe(const Op& op) {
  const std::string t = "table#" + std::to_string(op.table);
  switch (op.kind) {
    case OpKind::kCreateTable: {
      std::string out = "CreateTable(" + op.schema + "." + Quote(op.table_name) + ", [";
      for (size_t i = 0; i < op.defs.size(); ++i) out += (i ? ", " : "") + DescribeDef(op.defs[i]);
      return out + "])";
    }
    case OpKind::kDropTable:
      return "DropTable(" + op.schema + "." + Quote(op.table_name) + ")";
    case OpKind::kRenameTable:
      return "RenameTable(" + op.schema + "." + Quote(op.table_name) + " -> " + Quote(op.text) +
             ")";
    case OpKind::kAddColumn:
      return "AddColumn(" + t + ", under " + JoinPath(op.path) + ", " + DescribeDef(op.defs[0]) +
             ")";
    case OpKind::kDropColumn:
      return "DropColumn(" + t + ", " + JoinPath(op.path) + ")";
    case OpKind::kRenameColumn:
      return "RenameColumn(" + t + ", " + JoinPath(op.path) + " -> " + Quote(op.text) + ")";
    case OpKind::kChangeType:
      return "ChangeColumnType(" + t + ", " + JoinPath(op.path) + ", " + Quote(op.text) + ")";
    case OpKind::kSetDefault:
      return "SetColumnDefault(" + t + ", " + JoinPath(op.path) + ", " + op.text + ")";
    case OpKind::kDropDefault:
      return "DropColumnDefault(" + t + ", " + JoinPath(op.path) + ")";
    case OpKind::kRegisterFile:
      return "RegisterDataFile(" + t + ", " + Quote(op.text) + ", " + std::to_string(op.records) +
             ", " + std::to_string(op.bytes) + ")";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// Generation: ops are drawn against the model's current state, so most are
// meaningful, with a share of deliberately bad ones.

const std::vector<std::string> kColumnNames = {"a", "b", "c", "d", "e", "f", "g"};
const std::vector<std::string> kTableNames = {"t1", "t2", "t3", "t4"};
const std::vector<std::string> kLeafTypes = {"int32", "int64", "varchar", "double"};
const std::vector<std::string> kLiterals = {"0", "1", "42", "'x'"};

// A uniform draw from [min, max): gen::inRange alone scales its range with the
// test's size, which would make the early cases nearly all refusals.
template <class T>
T Uniform(T min, T max) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

bool Chance(int percent) { return Uniform(0, 100) < percent; }

template <class T>
T Pick(const std::vector<T>& items) {
  return *rc::gen::elementOf(items);
}

template <class T>
void Shuffle(std::vector<T>& items) {
  for (size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[Uniform<size_t>(0, i)]);
  }
}

// `count` names, distinct except for a rare deliberate duplicate.
std::vector<std::string> SiblingNames(size_t count) {
  std::vector<std::string> pool = kColumnNames;
  Shuffle(pool);
  pool.resize(std::min(count, pool.size()));
  if (pool.size() >= 2 && Chance(4)) pool.back() = pool.front();
  if (!pool.empty() && Chance(2)) pool.back() = "";
  return pool;
}

ColumnDef GenDef(const std::string& name, int depth) {
  const int shape = depth >= 2 ? 0 : Uniform(0, 100);
  ColumnDef def;
  if (shape < 70) {
    def = ColumnDef::Leaf(name, Chance(2) ? "" : Pick(kLeafTypes));
    if (Chance(20)) def.default_value = Pick(kLiterals);
    if (Chance(1)) def.children.push_back(ColumnDef::Leaf("z", "int32"));  // leaf with a field
  } else if (shape < 85) {
    std::vector<ColumnDef> fields;
    const size_t count = Chance(3) ? 0 : Uniform<size_t>(1, 4);
    for (const auto& field : SiblingNames(count)) fields.push_back(GenDef(field, depth + 1));
    def = ColumnDef::Struct(name, fields);
  } else if (shape < 93) {
    def = ColumnDef::List(name, GenDef("element", depth + 1));
  } else {
    def = ColumnDef::Map(name, GenDef("key", depth + 1), GenDef("value", depth + 1));
  }
  return def;
}

std::vector<ColumnPath> AllPaths(const ModelTable& table) {
  std::vector<ColumnPath> paths;
  for (const auto& [id, column] : table.columns) {
    ColumnPath path;
    for (Id at = id; at != 0; at = table.columns.at(at).parent) {
      path.insert(path.begin(), table.columns.at(at).name);
    }
    paths.push_back(path);
  }
  return paths;
}

Id PickTableId(const ModelState& state) {
  if (!state.tables.empty() && Chance(92)) {
    std::vector<Id> ids;
    for (const auto& [id, _] : state.tables) ids.push_back(id);
    return Pick(ids);
  }
  return Uniform<Id>(1, state.next_catalog_id + 2);  // dropped or never made
}

ColumnPath PickPath(const ModelState& state, Id table) {
  auto it = state.tables.find(table);
  if (it == state.tables.end() || Chance(6)) return {Pick(kColumnNames), "zz"};
  ColumnPath path = Pick(AllPaths(it->second));
  if (Chance(3)) path.push_back(Pick(kColumnNames));  // below a leaf: absent
  return path;
}

std::string PickTableName() { return Chance(2) ? "" : Pick(kTableNames); }

Op GenOp(const ModelState& state) {
  Op op;
  op.kind = *rc::gen::weightedElement<OpKind>({
      {10, OpKind::kCreateTable},
      {3, OpKind::kDropTable},
      {3, OpKind::kRenameTable},
      {16, OpKind::kAddColumn},
      {10, OpKind::kDropColumn},
      {10, OpKind::kRenameColumn},
      {7, OpKind::kChangeType},
      {5, OpKind::kSetDefault},
      {4, OpKind::kDropDefault},
      {8, OpKind::kRegisterFile},
  });
  if (state.tables.empty() && Chance(50)) op.kind = OpKind::kCreateTable;
  switch (op.kind) {
    case OpKind::kCreateTable: {
      if (Chance(2)) op.schema = "nope";
      op.table_name = PickTableName();
      const size_t count = Chance(2) ? 0 : Uniform<size_t>(1, 5);
      for (const auto& name : SiblingNames(count)) op.defs.push_back(GenDef(name, 0));
      break;
    }
    case OpKind::kDropTable:
      op.table_name = PickTableName();
      break;
    case OpKind::kRenameTable:
      op.table_name = PickTableName();
      op.text = PickTableName();
      break;
    case OpKind::kAddColumn: {
      op.table = PickTableId(state);
      if (Chance(35)) {
        // Prefer a struct as the parent; any other column is refused.
        auto it = state.tables.find(op.table);
        std::vector<ColumnPath> structs;
        if (it != state.tables.end()) {
          for (const auto& path : AllPaths(it->second)) {
            if (it->second.columns.at(Resolve(it->second, path)).type == "struct") {
              structs.push_back(path);
            }
          }
        }
        op.path = !structs.empty() && Chance(80) ? Pick(structs) : PickPath(state, op.table);
      }
      op.defs.push_back(GenDef(Chance(2) ? "" : Pick(kColumnNames), 0));
      break;
    }
    case OpKind::kDropColumn:
    case OpKind::kDropDefault:
      op.table = PickTableId(state);
      op.path = PickPath(state, op.table);
      break;
    case OpKind::kRenameColumn:
      op.table = PickTableId(state);
      op.path = PickPath(state, op.table);
      op.text = Chance(2) ? "" : Pick(kColumnNames);
      break;
    case OpKind::kChangeType:
      op.table = PickTableId(state);
      op.path = PickPath(state, op.table);
      op.text = Chance(3) ? "" : Pick(kLeafTypes);
      break;
    case OpKind::kSetDefault:
      op.table = PickTableId(state);
      op.path = PickPath(state, op.table);
      op.text = Pick(kLiterals);
      break;
    case OpKind::kRegisterFile:
      op.table = PickTableId(state);
      op.text = Chance(3) ? "" : "f" + std::to_string(Uniform(0, 1000)) + ".parquet";
      op.records = Chance(3) ? -1 : Uniform<int64_t>(0, 10000);
      op.bytes = Uniform<int64_t>(0, 1 << 20);
      break;
  }
  return op;
}

// ---------------------------------------------------------------------------
// Comparison: both sides rendered to the same sorted lines

std::vector<std::string> Render(const ModelState& state, bool at_head) {
  std::vector<std::string> lines;
  std::ostringstream out;
  out << "snapshot " << state.snapshot_id << " schema_version " << state.schema_version
      << " next_catalog_id " << state.next_catalog_id << " next_file_id " << state.next_file_id;
  lines.push_back(out.str());
  for (const auto& [id, table] : state.tables) {
    std::ostringstream t;
    t << "table " << id << " name=" << table.name << " begin=" << table.begin;
    if (at_head) t << " next_column_id=" << table.next_column_id;
    lines.push_back(t.str());
    for (const auto& [cid, c] : table.columns) {
      std::ostringstream line;
      line << "  table " << id << " column " << cid << " name=" << c.name << " type=" << c.type
           << " parent=" << c.parent << " order=" << c.order << " default=" << c.default_value
           << " initial_default=" << c.initial_default << " begin=" << c.begin;
      lines.push_back(line.str());
    }
    for (const auto& [fid, f] : table.files) {
      std::ostringstream line;
      line << "  table " << id << " file " << fid << " path=" << f.path << " records=" << f.records
           << " bytes=" << f.bytes << " begin=" << f.begin;
      lines.push_back(line.str());
    }
  }
  return lines;
}

// The real state projected onto the model's shape.
ModelState Project(const catalog::CatalogState& state) {
  ModelState model;
  model.snapshot_id = state.snapshot_id();
  model.schema_version = state.schema_version();
  model.next_catalog_id = state.next_catalog_id();
  model.next_file_id = state.next_file_id();
  for (const catalog::TableState* table : state.Tables()) {
    ModelTable& t = model.tables[table->id()];
    t.name = table->record.table_name();
    if (table->record.schema_id() != 0)
      t.name += " (schema " + std::to_string(table->record.schema_id()) + ")";
    t.begin = table->record.begin_snapshot();
    t.next_column_id = static_cast<Id>(table->record.next_column_id());
    table->columns.ForEach([&](Id id, const catalog::ColumnRecord& c) {
      ModelColumn& column = t.columns[id];
      column.name = c.column_name();
      column.type = c.column_type();
      column.parent = c.has_parent_column() ? c.parent_column() : 0;
      column.order = c.column_order();
      column.default_value = c.default_value();
      column.initial_default = c.initial_default();
      column.begin = c.begin_snapshot();
      if (c.column_id() != id || c.table_id() != table->id()) column.name += " (MISKEYED)";
      return true;
    });
    table->data_files.ForEach([&](Id id, const catalog::DataFileRecord& f) {
      t.files[id] = ModelFile{f.path(), f.record_count(), f.file_size_bytes(), f.begin_snapshot()};
      return true;
    });
  }
  return model;
}

// "" when equal; otherwise the lines only one side has.
std::string Diff(const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  std::vector<std::string> a = expected, b = actual;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string> missing, extra;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra));
  std::string out;
  for (const auto& line : missing) out += "  - model:   " + line + "\n";
  for (const auto& line : extra) out += "  + catalog: " + line + "\n";
  return out;
}

std::string CodeName(std::optional<ErrorCode> code) {
  return code ? store::ErrorCodeName(*code) : "success";
}

// ---------------------------------------------------------------------------
// The property

RC_GTEST_PROP(CatalogModelProperty, RunsAtLeast1000Cases, ()) {
  RC_ASSERT(rc::detail::configuration().testParams.maxSuccess >= 1000);
}

RC_GTEST_PROP(CatalogModelProperty, EverySnapshotMatchesTheModel, ()) {
  auto catalog = commit::Catalog::Open(commit::CatalogOptions{.location = "memory://"});
  std::vector<ModelState> snapshots{ModelState{}};  // index: snapshot id
  const int steps = Uniform(1, 41);
  size_t refused = 0;
  for (int step = 0; step < steps; ++step) {
    const ModelState base = snapshots.back();
    ModelTxn scratch{base, base.snapshot_id + 1, false, false, {}};
    // Most transactions hold one verb; some several, each drawn against the
    // state the earlier ones left.
    const int verbs = Chance(15) ? Uniform(2, 5) : 1;
    std::vector<Op> ops;
    std::optional<ModelError> predicted;
    for (int i = 0; i < verbs && !predicted; ++i) {
      ops.push_back(GenOp(scratch.state));
      try {
        ApplyModel(ops.back(), scratch);
      } catch (const ModelError& error) {
        predicted = error;
      }
    }
    std::string described;
    for (const auto& op : ops) described += (described.empty() ? "" : "; ") + Describe(op);
    RC_LOG() << "step " << step << " on snapshot " << base.snapshot_id << ": " << described
             << "  => model: "
             << (predicted ? CodeName(predicted->code) + " (" + predicted->why + ")" : "ok")
             << "\n";

    std::optional<ErrorCode> actual;
    std::string actual_message;
    commit::CommitResult result;
    try {
      result = catalog->Commit([&](Transaction& txn) {
        for (const auto& op : ops) ApplyReal(op, txn);
      });
    } catch (const store::Error& error) {
      actual = error.code();
      actual_message = error.what();
    }
    const Id head = catalog->Head()->snapshot_id();
    const std::optional<ErrorCode> expected =
        predicted ? std::optional<ErrorCode>(predicted->code) : std::nullopt;
    if (expected != actual) {
      RC_FAIL("step " + std::to_string(step) + ": " + described + "\n  model expected " +
              CodeName(expected) + (predicted ? " (" + predicted->why + ")" : "") +
              ", catalog gave " + CodeName(actual) + " " + actual_message);
    }
    if (actual) {
      ++refused;
      // A refused transaction lands nothing.
      if (head != base.snapshot_id) {
        RC_FAIL("refused transaction moved head " + std::to_string(base.snapshot_id) + " -> " +
                std::to_string(head));
      }
      continue;
    }
    if (!scratch.Changed()) {
      // Nothing to write: no snapshot.
      RC_ASSERT(!result.committed);
      RC_ASSERT(result.snapshot_id == base.snapshot_id);
      RC_ASSERT(head == base.snapshot_id);
      continue;
    }
    RC_ASSERT(result.committed);
    RC_ASSERT(result.snapshot_id == base.snapshot_id + 1);
    RC_ASSERT(head == result.snapshot_id);
    scratch.state.snapshot_id = scratch.snapshot;
    scratch.state.schema_version += scratch.SchemaChanged() ? 1 : 0;
    // DuckLake's counter is MAX(column_id) over committed versions + 1: an id
    // issued and dropped within one transaction was never written, so a
    // later ADD COLUMN issues it again.
    for (auto& [id, table] : scratch.state.tables) {
      auto it = base.tables.find(id);
      const Id committed = it == base.tables.end() ? 1 : it->second.next_column_id;
      const Id max_live = table.columns.empty() ? 0 : table.columns.rbegin()->first;
      table.next_column_id = std::max(committed, max_live + 1);
    }
    snapshots.push_back(scratch.state);
  }

  // How much of the sequence landed (rapidcheck prints the distribution).
  const size_t landed = snapshots.size() - 1;
  RC_TAG(refused * 4 < static_cast<size_t>(steps)   ? "<25% refused"
         : refused * 2 < static_cast<size_t>(steps) ? "25-50% refused"
                                                    : ">=50% refused");
  RC_TAG(landed == 0   ? "0 commits landed"
         : landed < 5  ? "1-4 commits landed"
         : landed < 15 ? "5-14 commits landed"
                       : "15+ commits landed");

  // Every snapshot the sequence produced, reconstructed through time travel.
  std::string report;
  for (const ModelState& model : snapshots) {
    const bool at_head = model.snapshot_id == snapshots.back().snapshot_id;
    const std::string diff =
        Diff(Render(model, at_head), Render(Project(*catalog->At(model.snapshot_id)), at_head));
    if (!diff.empty()) report += "at snapshot " + std::to_string(model.snapshot_id) + ":\n" + diff;
  }
  const std::string head_diff =
      Diff(Render(snapshots.back(), true), Render(Project(*catalog->Head()), true));
  if (!head_diff.empty()) report += "at head (cached state):\n" + head_diff;
  if (!report.empty()) RC_FAIL("catalog differs from the model\n" + report);
}

}  // namespace
}  // namespace moraine
