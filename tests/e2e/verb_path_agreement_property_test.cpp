// The agreement property (issue #11, "One writer"): a random sequence of
// catalog operations, driven once through the C++ verbs (commit::Catalog)
// and once as DuckLake SQL through the pinned DuckLake on a moraine lake,
// leaves identical rows in all 28 ducklake_* tables. Every row is compared,
// current and ended versions alike, so the two catalogs agree at every
// snapshot. Only what DuckLake itself makes random or writer-specific is
// normalized (support/normalized_catalog.h).
//
// Operations: create/drop/rename table, add (top-level and struct fields,
// with and without a default), drop (columns and struct fields), rename
// (columns and fields), type promotion, set/drop default, create/drop
// schema; one commit each. Data files are left out: DuckLake registers a
// file only by writing or reading Parquet (INSERT, ducklake_add_data_files),
// whose footer sizes, column stats and name mappings the verb has no input for.
//
// MORAINE_AGREEMENT_CASES (default 200) and MORAINE_AGREEMENT_SEED (default
// fixed) choose the cases; a failure prints its seed and script.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "catalog/column_def.h"
#include "commit/verbs/catalog.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/normalized_catalog.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using catalog::Id;
using commit::Transaction;
using Path = catalog::ColumnPath;

struct ModelColumn {
  std::string name;
  std::string type;  // int32, int64, varchar, struct
  std::vector<ModelColumn> fields;
};

struct ModelTable {
  std::string name;
  Id id = 0;  // DuckLake and the verbs assign the same ids, or the case fails
  std::vector<ModelColumn> columns;
};

struct Step {
  std::string sql;
  std::function<void(Transaction&)> verb;
};

std::string SqlType(const ModelColumn& column) {
  if (column.type == "int32") return "INTEGER";
  if (column.type == "int64") return "BIGINT";
  if (column.type == "varchar") return "VARCHAR";
  std::string fields;
  for (const auto& field : column.fields) {
    fields += (fields.empty() ? "" : ", ") + field.name + " " + SqlType(field);
  }
  return "STRUCT(" + fields + ")";
}

ColumnDef DefOf(const ModelColumn& column) {
  if (column.type != "struct") return ColumnDef::Leaf(column.name, column.type);
  std::vector<ColumnDef> fields;
  for (const auto& field : column.fields) fields.push_back(DefOf(field));
  return ColumnDef::Struct(column.name, fields);
}

std::string Join(const Path& path) {
  std::string out;
  for (const auto& part : path) out += (out.empty() ? "" : ".") + part;
  return out;
}

// Generates one case's steps while keeping the model of what exists.
class Script {
 public:
  explicit Script(uint64_t seed) : random_(seed) {}

  std::vector<Step> Generate() {
    std::vector<Step> steps;
    steps.push_back(CreateTable());
    const int length = 3 + Pick(6);
    while (static_cast<int>(steps.size()) < length) {
      if (auto step = Next()) steps.push_back(std::move(*step));
    }
    return steps;
  }

 private:
  int Pick(int n) { return static_cast<int>(random_() % static_cast<uint64_t>(n)); }
  std::string Fresh(const char* prefix) { return prefix + std::to_string(counter_++); }

  ModelColumn RandomColumn(bool allow_struct) {
    ModelColumn column{Fresh("c"), "int32", {}};
    const int kind = Pick(allow_struct ? 4 : 3);
    if (kind == 1) column.type = "int64";
    if (kind == 2) column.type = "varchar";
    if (kind == 3) {
      column.type = "struct";
      const int fields = 1 + Pick(2);
      for (int i = 0; i < fields; ++i) column.fields.push_back(RandomColumn(false));
    }
    return column;
  }

  Step CreateTable() {
    ModelTable table{Fresh("t"), next_catalog_id_++, {}};
    const int columns = 1 + Pick(3);
    for (int i = 0; i < columns; ++i) table.columns.push_back(RandomColumn(true));
    std::string sql = "CREATE TABLE lake." + table.name + " (";
    std::vector<ColumnDef> defs;
    for (size_t i = 0; i < table.columns.size(); ++i) {
      sql += (i ? ", " : "") + table.columns[i].name + " " + SqlType(table.columns[i]);
      defs.push_back(DefOf(table.columns[i]));
    }
    tables_.push_back(table);
    return {sql + ")",
            [name = table.name, defs](Transaction& txn) { txn.CreateTable("main", name, defs); }};
  }

  // One operation, chosen by weight; nullopt when it does not apply now.
  std::optional<Step> Next() {
    using Make = std::optional<Step> (Script::*)();
    static constexpr std::pair<int, Make> kOperations[] = {
        {1, &Script::CreateTableStep}, {1, &Script::DropTable},  {1, &Script::RenameTable},
        {2, &Script::AddColumn},       {1, &Script::DropColumn}, {2, &Script::RenameColumn},
        {1, &Script::ChangeType},      {1, &Script::Default},    {1, &Script::Schema},
        {1, &Script::AddField}};
    int total = 0;
    for (const auto& [weight, make] : kOperations) total += weight;
    int pick = Pick(total);
    for (const auto& [weight, make] : kOperations) {
      if ((pick -= weight) < 0) return (this->*make)();
    }
    return std::nullopt;
  }

  std::optional<Step> CreateTableStep() { return CreateTable(); }

  ModelTable* AnyTable() { return tables_.empty() ? nullptr : &tables_[Pick(tables_.size())]; }

  std::optional<Step> DropTable() {
    if (tables_.size() < 2) return std::nullopt;
    const size_t index = Pick(tables_.size());
    const std::string name = tables_[index].name;
    tables_.erase(tables_.begin() + static_cast<long>(index));
    return Step{"DROP TABLE lake." + name,
                [name](Transaction& txn) { txn.DropTable("main", name); }};
  }

  std::optional<Step> RenameTable() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    const std::string old_name = table->name;
    table->name = Fresh("t");
    return Step{"ALTER TABLE lake." + old_name + " RENAME TO " + table->name,
                [old_name, name = table->name](Transaction& txn) {
                  txn.RenameTable("main", old_name, name);
                }};
  }

  std::optional<Step> AddColumn() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn column = RandomColumn(true);
    ColumnDef def = DefOf(column);
    std::string sql =
        "ALTER TABLE lake." + table->name + " ADD COLUMN " + column.name + " " + SqlType(column);
    if (column.type == "int32" && Pick(2) == 0) {
      def.default_value = "7";
      sql += " DEFAULT 7";
    }
    table->columns.push_back(column);
    return Step{sql, [id = table->id, def](Transaction& txn) { txn.AddColumn(id, {}, def); }};
  }

  // A struct column of `table`, or nullptr.
  ModelColumn* AnyStruct(ModelTable& table) {
    std::vector<ModelColumn*> structs;
    for (auto& column : table.columns) {
      if (column.type == "struct") structs.push_back(&column);
    }
    return structs.empty() ? nullptr : structs[Pick(structs.size())];
  }

  std::optional<Step> AddField() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn* parent = AnyStruct(*table);
    if (!parent) return std::nullopt;
    ModelColumn field = RandomColumn(false);
    parent->fields.push_back(field);
    return Step{"ALTER TABLE lake." + table->name + " ADD COLUMN " + parent->name + "." +
                    field.name + " " + SqlType(field),
                [id = table->id, parent = parent->name, def = DefOf(field)](Transaction& txn) {
                  txn.AddColumn(id, {parent}, def);
                }};
  }

  std::optional<Step> DropColumn() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn* parent = Pick(2) ? AnyStruct(*table) : nullptr;
    if (parent && parent->fields.size() > 1) {
      const size_t index = Pick(parent->fields.size());
      const Path path{parent->name, parent->fields[index].name};
      parent->fields.erase(parent->fields.begin() + static_cast<long>(index));
      return Step{"ALTER TABLE lake." + table->name + " DROP COLUMN " + Join(path),
                  [id = table->id, path](Transaction& txn) { txn.DropColumn(id, path); }};
    }
    if (table->columns.size() < 2) return std::nullopt;
    const size_t index = Pick(table->columns.size());
    const std::string name = table->columns[index].name;
    table->columns.erase(table->columns.begin() + static_cast<long>(index));
    return Step{"ALTER TABLE lake." + table->name + " DROP COLUMN " + name,
                [id = table->id, name](Transaction& txn) { txn.DropColumn(id, {name}); }};
  }

  std::optional<Step> RenameColumn() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn* target = &table->columns[Pick(table->columns.size())];
    Path path{target->name};
    if (target->type == "struct" && Pick(2)) {
      ModelColumn* field = &target->fields[Pick(target->fields.size())];
      path.push_back(field->name);
      target = field;
    }
    target->name = Fresh("c");
    return Step{
        "ALTER TABLE lake." + table->name + " RENAME COLUMN " + Join(path) + " TO " + target->name,
        [id = table->id, path, name = target->name](Transaction& txn) {
          txn.RenameColumn(id, path, name);
        }};
  }

  ModelColumn* AnyTopLevel(ModelTable& table, const std::string& type) {
    std::vector<ModelColumn*> found;
    for (auto& column : table.columns) {
      if (column.type == type) found.push_back(&column);
    }
    return found.empty() ? nullptr : found[Pick(found.size())];
  }

  std::optional<Step> ChangeType() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn* column = AnyTopLevel(*table, "int32");
    if (!column) return std::nullopt;
    column->type = "int64";
    return Step{
        "ALTER TABLE lake." + table->name + " ALTER COLUMN " + column->name + " SET TYPE BIGINT",
        [id = table->id, name = column->name](Transaction& txn) {
          txn.ChangeColumnType(id, {name}, "int64");
        }};
  }

  std::optional<Step> Default() {
    ModelTable* table = AnyTable();
    if (!table) return std::nullopt;
    ModelColumn* column = AnyTopLevel(*table, Pick(2) ? "int32" : "int64");
    if (!column) return std::nullopt;
    const std::string prefix = "ALTER TABLE lake." + table->name + " ALTER COLUMN " + column->name;
    if (Pick(2)) {
      const std::string value = std::to_string(Pick(100));
      return Step{prefix + " SET DEFAULT " + value,
                  [id = table->id, name = column->name, value](Transaction& txn) {
                    txn.SetColumnDefault(id, {name}, value);
                  }};
    }
    return Step{prefix + " DROP DEFAULT", [id = table->id, name = column->name](Transaction& txn) {
                  txn.DropColumnDefault(id, {name});
                }};
  }

  std::optional<Step> Schema() {
    if (!schema_.empty()) {
      const std::string name = schema_;
      schema_.clear();
      return Step{"DROP SCHEMA lake." + name, [name](Transaction& txn) { txn.DropSchema(name); }};
    }
    schema_ = Fresh("s");
    ++next_catalog_id_;
    return Step{"CREATE SCHEMA lake." + schema_,
                [name = schema_](Transaction& txn) { txn.CreateSchema(name); }};
  }

  std::mt19937_64 random_;
  int counter_ = 0;
  Id next_catalog_id_ = 1;
  std::vector<ModelTable> tables_;
  std::string schema_;
};

std::string Describe(const std::vector<Step>& steps) {
  std::string out;
  for (const auto& step : steps) out += "  " + step.sql + ";\n";
  return out;
}

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::strtoull(value, nullptr, 10) : fallback;
}

std::shared_ptr<store::KvStore> OpenReadOnly(const std::string& location) {
  return std::shared_ptr<store::KvStore>(
      store::OpenKvStore({.location = location, .read_only = true, .create_if_missing = false}));
}

TEST(VerbPathAgreementProperty, RandomSequencesWriteTheSameRowsAsDuckLake) {
  const uint64_t cases = EnvNumber("MORAINE_AGREEMENT_CASES", 200);
  const uint64_t base_seed = EnvNumber("MORAINE_AGREEMENT_SEED", 20261101);
  test::TempDir dir;
  const std::string data_path = dir.path("files") + "/";
  test::DuckLakeSession session;
  for (uint64_t i = 0; i < cases; ++i) {
    const uint64_t seed = base_seed + i;
    const std::vector<Step> steps = Script(seed).Generate();
    // Named in-memory stores outlive their handles within the process, so
    // each is read again after its writer closed it.
    const std::string verbs_location = "memory://agreement-verbs-" + std::to_string(seed);
    const std::string lake_location = "memory://agreement-lake-" + std::to_string(seed);
    {
      auto catalog = commit::Catalog::Open({.location = verbs_location, .data_path = data_path});
      for (const auto& step : steps) {
        auto result = catalog->Commit(step.verb);
        ASSERT_TRUE(result.committed) << "seed " << seed << ": " << step.sql;
      }
    }
    session.Run("ATTACH 'ducklake:moraine:" + lake_location + "' AS lake (DATA_PATH '" + data_path +
                "')");
    for (const auto& step : steps) session.Run(step.sql);
    session.Run("DETACH lake");
    const test::NormalizedCatalog ducklake = test::DumpNormalized(OpenReadOnly(lake_location));
    const test::NormalizedCatalog verbs = test::DumpNormalized(OpenReadOnly(verbs_location));
    ASSERT_EQ(verbs, ducklake) << "seed " << seed << " (MORAINE_AGREEMENT_SEED=" << seed
                               << " MORAINE_AGREEMENT_CASES=1), script:\n"
                               << Describe(steps) << test::DescribeDifferences(verbs, ducklake);
  }
}

}  // namespace
}  // namespace moraine
