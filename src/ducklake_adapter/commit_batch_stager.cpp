#include "ducklake_adapter/commit_batch_stager.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "duckdb/catalog/entry_lookup_info.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/materialized_query_result.hpp"
#include "duckdb/parser/expression/cast_expression.hpp"
#include "duckdb/parser/expression/columnref_expression.hpp"
#include "duckdb/parser/expression/comparison_expression.hpp"
#include "duckdb/parser/expression/conjunction_expression.hpp"
#include "duckdb/parser/expression/operator_expression.hpp"
#include "duckdb/parser/expression/star_expression.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/parser/parser.hpp"
#include "duckdb/parser/query_node/select_node.hpp"
#include "duckdb/parser/statement/create_statement.hpp"
#include "duckdb/parser/statement/insert_statement.hpp"
#include "duckdb/parser/statement/select_statement.hpp"
#include "duckdb/parser/statement/update_statement.hpp"
#include "duckdb/parser/tableref/basetableref.hpp"
#include "duckdb/parser/tableref/expressionlistref.hpp"
#include "duckdb/transaction/meta_transaction.hpp"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_schema_entry.h"
#include "duckdb_shim/moraine_table_entry.h"
#include "duckdb_shim/moraine_transaction.h"
#include "ducklake_adapter/batch_constants.h"
#include "ducklake_adapter/inlined_table_ddl.h"
#include "ducklake_adapter/result_rows.h"

namespace moraine::ducklake_adapter {

using duckdb_shim::CatalogStore;
using duckdb_shim::CellKind;
using duckdb_shim::ColumnCodec;
using duckdb_shim::MoraineCatalog;
using duckdb_shim::MoraineSchemaEntry;
using duckdb_shim::MoraineTableEntry;
using duckdb_shim::MoraineTransaction;
namespace {

using duckdb::StringUtil;
using duckdb::Value;

// The rows of a VALUES list of constants; nullopt if any cell is not one, a
// row has another width, or a column's values would unify to a type they do
// not each cast through (UnifiesTrivially).
std::optional<std::vector<std::vector<Value>>> ConstantRows(const duckdb::ExpressionListRef& list,
                                                            size_t width,
                                                            duckdb::timestamp_t start) {
  if (list.values.empty()) return std::nullopt;
  std::vector<std::vector<Value>> rows;
  for (auto& expressions : list.values) {
    if (expressions.size() != width) return std::nullopt;
    auto& row = rows.emplace_back();
    for (auto& expression : expressions) {
      auto value = ConstantValueOf(*expression, start);
      if (!value) return std::nullopt;
      row.push_back(std::move(*value));
    }
  }
  for (size_t column = 0; column < width; column++) {
    const Value* first = nullptr;
    for (auto& row : rows) {
      if (row[column].IsNull()) continue;
      if (!first) first = &row[column];
      if (!UnifiesTrivially(*first, row[column])) return std::nullopt;
    }
  }
  return rows;
}

// The one CTE of an UPDATE ... FROM it: `WITH v(a, b, ...) AS (VALUES ...)`.
struct ValuesCte {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;
};

std::optional<ValuesCte> ValuesCteOf(const duckdb::UpdateStatement& update,
                                     duckdb::timestamp_t start) {
  if (update.cte_map.map.size() != 1 || !update.from_table ||
      update.from_table->type != duckdb::TableReferenceType::BASE_TABLE) {
    return std::nullopt;
  }
  auto& from = update.from_table->Cast<duckdb::BaseTableRef>();
  auto& [name, info] = *update.cte_map.map.begin();
  if (!from.catalog_name.empty() || !from.schema_name.empty() || from.at_clause ||
      !from.alias.empty() || !from.column_name_alias.empty() ||
      !StringUtil::CIEquals(from.table_name, name) || !info->key_targets.empty() || !info->query ||
      info->query->node->type != duckdb::QueryNodeType::SELECT_NODE) {
    return std::nullopt;
  }
  auto& node = info->query->node->Cast<duckdb::SelectNode>();
  if (!node.modifiers.empty() || !node.cte_map.map.empty() || node.where_clause || node.having ||
      node.qualify || node.sample || !node.groups.group_expressions.empty() ||
      node.select_list.size() != 1 || !node.from_table ||
      node.from_table->type != duckdb::TableReferenceType::EXPRESSION_LIST) {
    return std::nullopt;
  }
  auto& star = *node.select_list[0];
  if (star.GetExpressionClass() != duckdb::ExpressionClass::STAR) return std::nullopt;
  auto& star_expression = star.Cast<duckdb::StarExpression>();
  if (!star_expression.relation_name.empty() || !star_expression.exclude_list.empty() ||
      !star_expression.replace_list.empty() || !star_expression.rename_list.empty() ||
      star_expression.expr || star_expression.columns || !star.alias.empty()) {
    return std::nullopt;
  }
  auto& list = node.from_table->Cast<duckdb::ExpressionListRef>();
  if (info->aliases.empty() || !list.column_name_alias.empty()) return std::nullopt;
  auto rows = ConstantRows(list, info->aliases.size(), start);
  if (!rows) return std::nullopt;
  return ValuesCte{name, {info->aliases.begin(), info->aliases.end()}, std::move(*rows)};
}

// One side of a comparison or a SET value: a column of the updated table, a
// column of the CTE (optionally cast), or a constant.
struct Operand {
  enum class Kind { kTableColumn, kCteColumn, kConstant } kind = Kind::kConstant;
  size_t column = 0;
  std::optional<duckdb::LogicalType> cast;  // kCteColumn only
  Value constant = Value();
};

// The table's column of that name, found as DuckDB's binder finds it.
std::optional<size_t> TableColumn(const MoraineTableEntry& table, std::string name) {
  if (!table.ColumnExists(name)) return std::nullopt;
  return table.GetColumnIndex(name).index;
}

// The CTE column of that name; nullopt if absent or named twice.
std::optional<size_t> ColumnIndex(const std::vector<std::string>& names, const std::string& name) {
  std::optional<size_t> found;
  for (size_t i = 0; i < names.size(); i++) {
    if (!StringUtil::CIEquals(names[i], name)) continue;
    if (found) return std::nullopt;  // ambiguous
    found = i;
  }
  return found;
}

// Resolves names the way a binder would for this narrow form, refusing
// anything ambiguous rather than guessing.
class Names {
 public:
  Names(const duckdb::BaseTableRef& ref, const MoraineTableEntry& table, const ValuesCte* cte)
      : ref_(ref), table_(table), cte_(cte) {}

  std::optional<Operand> Resolve(const duckdb::ParsedExpression& expression,
                                 duckdb::timestamp_t start) const {
    if (expression.GetExpressionClass() == duckdb::ExpressionClass::COLUMN_REF) {
      return ResolveColumn(expression.Cast<duckdb::ColumnRefExpression>());
    }
    if (expression.GetExpressionClass() == duckdb::ExpressionClass::CAST) {
      auto& cast = expression.Cast<duckdb::CastExpression>();
      if (!cast.try_cast &&
          cast.child->GetExpressionClass() == duckdb::ExpressionClass::COLUMN_REF) {
        auto operand = ResolveColumn(cast.child->Cast<duckdb::ColumnRefExpression>());
        if (!operand || operand->kind != Operand::Kind::kCteColumn) return std::nullopt;
        auto type = BuiltinType(cast.cast_type);
        if (!CastsWithoutContext(type)) return std::nullopt;
        operand->cast = type;
        return operand;
      }
    }
    auto constant = ConstantValueOf(expression, start);
    if (!constant) return std::nullopt;
    return Operand{Operand::Kind::kConstant, 0, std::nullopt, std::move(*constant)};
  }

 private:
  std::optional<Operand> ResolveColumn(const duckdb::ColumnRefExpression& ref) const {
    const auto& names = ref.column_names;
    bool table_side = true, cte_side = cte_ != nullptr;
    if (names.size() == 2) {
      const auto& qualifier = names[0];
      table_side =
          StringUtil::CIEquals(qualifier, ref_.alias.empty() ? ref_.table_name : ref_.alias);
      cte_side = cte_side && StringUtil::CIEquals(qualifier, cte_->name);
    } else if (names.size() != 1) {
      return std::nullopt;
    }
    const auto& name = names.back();
    auto in_table = table_side ? TableColumn(table_, name) : std::nullopt;
    auto in_cte = cte_side ? ColumnIndex(cte_->columns, name) : std::nullopt;
    if (in_table.has_value() == in_cte.has_value()) return std::nullopt;  // absent or ambiguous
    if (in_table) return Operand{Operand::Kind::kTableColumn, *in_table, std::nullopt, Value()};
    return Operand{Operand::Kind::kCteColumn, *in_cte, std::nullopt, Value()};
  }

  const duckdb::BaseTableRef& ref_;
  const MoraineTableEntry& table_;
  const ValuesCte* cte_;
};

// A condition of the WHERE clause on one column of the updated table.
struct Condition {
  // `column IS NULL`, `column = other`, or `column != other` (other a constant).
  enum class Test { kIsNull, kEqual, kNotEqual };
  size_t column = 0;
  Test test = Test::kEqual;
  Operand other;
  // `other` as the cell the column must hold: one for a constant, one per
  // CTE row for a CTE column (ExpectedCell).
  std::vector<commit::Cell> expected;
};

bool CollectConditions(const duckdb::ParsedExpression& expression, const Names& names,
                       duckdb::timestamp_t start, std::vector<Condition>& out) {
  switch (expression.GetExpressionType()) {
    case duckdb::ExpressionType::CONJUNCTION_AND:
      for (auto& child : expression.Cast<duckdb::ConjunctionExpression>().children) {
        if (!CollectConditions(*child, names, start, out)) return false;
      }
      return true;
    case duckdb::ExpressionType::OPERATOR_IS_NULL: {
      auto& children = expression.Cast<duckdb::OperatorExpression>().children;
      if (children.size() != 1) return false;
      auto column = names.Resolve(*children[0], start);
      if (!column || column->kind != Operand::Kind::kTableColumn) return false;
      out.push_back({column->column, Condition::Test::kIsNull, Operand{}, {}});
      return true;
    }
    case duckdb::ExpressionType::COMPARE_EQUAL:
    case duckdb::ExpressionType::COMPARE_NOTEQUAL: {
      // DuckLake ends inlined rows with `begin_snapshot != <snapshot>` beside
      // the equalities; a `!=` is evaluated here against a constant only.
      const bool not_equal =
          expression.GetExpressionType() == duckdb::ExpressionType::COMPARE_NOTEQUAL;
      auto& comparison = expression.Cast<duckdb::ComparisonExpression>();
      auto left = names.Resolve(*comparison.left, start);
      auto right = names.Resolve(*comparison.right, start);
      if (!left || !right) return false;
      if (right->kind == Operand::Kind::kTableColumn) std::swap(left, right);
      if (left->kind != Operand::Kind::kTableColumn || right->kind == Operand::Kind::kTableColumn ||
          right->cast || (not_equal && right->kind != Operand::Kind::kConstant)) {
        return false;
      }
      out.push_back({left->column,
                     not_equal ? Condition::Test::kNotEqual : Condition::Test::kEqual,
                     std::move(*right),
                     {}});
      return true;
    }
    default:
      return false;
  }
}

// Whether `value` may be compared with a column of `codec` here: a BIGINT
// column with an integer, a VARCHAR column with a string, a BOOLEAN column
// with a boolean (the comparisons DuckDB makes in the column's own type).
bool ComparableHere(const ColumnCodec& codec, const Value& value) {
  if (value.IsNull()) return true;
  switch (codec.kind) {
    case CellKind::kBigint:
      return codec.type.id() == duckdb::LogicalTypeId::BIGINT && value.type().IsIntegral();
    case CellKind::kVarchar:
      return CastsWithoutContext(codec.type) && value.type().id() == duckdb::LogicalTypeId::VARCHAR;
    case CellKind::kBoolean:
      return value.type().id() == duckdb::LogicalTypeId::BOOLEAN;
    default:
      return false;
  }
}

// The cell a column of `codec` holds exactly when it equals `value` (a
// ComparableHere pair), worked out once per statement; NULL when no cell
// can: SQL NULL, or an integer outside BIGINT.
commit::Cell ExpectedCell(const ColumnCodec& codec, const Value& value) {
  if (value.IsNull()) return {};
  Value cast;
  std::string error;
  if (!value.DefaultTryCastAs(codec.type, cast, &error)) return {};
  return CellFromValue(cast, codec);
}

// `cell = expected` as DuckDB evaluates it (a NULL on either side matches nothing).
bool Equal(const commit::Cell& cell, const commit::Cell& expected) {
  return !catalog::IsNull(expected) && cell == expected;
}

// `cell != expected` as DuckDB evaluates it (a NULL on either side matches nothing).
bool NotEqual(const commit::Cell& cell, const commit::Cell& expected) {
  return !catalog::IsNull(expected) && !catalog::IsNull(cell) && cell != expected;
}

// A hash of the cells ComparableHere lets a condition expect (integers,
// booleans, strings); any other kind hashes alike and is told apart by ==.
struct ExpectedCellHash {
  size_t operator()(const commit::Cell& cell) const {
    if (const auto* number = std::get_if<int64_t>(&cell)) return std::hash<int64_t>()(*number);
    if (const auto* text = std::get_if<std::string>(&cell)) return std::hash<std::string>()(*text);
    if (const auto* flag = std::get_if<bool>(&cell)) return std::hash<bool>()(*flag);
    return 0;
  }
};

// The CTE rows by the cell one equality condition expects of them, so a
// target row finds its source rows by a lookup instead of a pass over the
// CTE (DuckLake ends a DELETE's inlined rows with a CTE row per row).
using CteRowsByCell = std::unordered_multimap<commit::Cell, size_t, ExpectedCellHash>;

}  // namespace

CommitBatchStager::CommitBatchStager(duckdb::ClientContext& context, MoraineCatalog& catalog,
                                     CatalogStore where)
    : context_(context), catalog_(catalog), where_(std::move(where)) {}

duckdb::unique_ptr<duckdb::QueryResult> CommitBatchStager::Run(const std::string& batch,
                                                               const SqlRunner& run_sql,
                                                               Counts& counts) {
  // The batch's statements in order: DuckLake's inlined table DDL read here
  // (inlined_table_ddl.h), the rest read by DuckDB's parser, all before any
  // runs, so that a batch DuckDB cannot parse runs whole as before.
  struct Piece {
    const InlinedTableDdl* ddl = nullptr;
    std::string_view ddl_text;
    const duckdb::SQLStatement* statement = nullptr;
  };
  auto segments = SplitAtInlinedTableDdl(batch);
  if (!segments) segments = std::vector<BatchSegment>{{batch, std::nullopt}};
  std::vector<std::unique_ptr<duckdb::Parser>> parsers;
  std::vector<Piece> pieces;
  try {
    for (const auto& segment : *segments) {
      if (segment.ddl) {
        pieces.push_back({&*segment.ddl, segment.sql, nullptr});
        continue;
      }
      auto& parser = *parsers.emplace_back(std::make_unique<duckdb::Parser>());
      parser.ParseQuery(std::string(segment.sql));
      for (auto& statement : parser.statements) pieces.push_back({nullptr, {}, statement.get()});
    }
  } catch (const std::exception&) {
    counts.sql++;
    return run_sql(batch);  // DuckDB reports the error in its own words
  }
  duckdb::unique_ptr<duckdb::QueryResult> last;
  std::string pending;  // statements for DuckDB, not run yet, in order
  auto run_pending = [&] {
    if (pending.empty()) return true;
    last = run_sql(std::move(pending));
    pending.clear();
    return !last->HasError();
  };
  for (const auto& piece : pieces) {
    const auto type =
        piece.statement ? piece.statement->type : duckdb::StatementType::CREATE_STATEMENT;
    if (type == duckdb::StatementType::INSERT_STATEMENT ||
        type == duckdb::StatementType::UPDATE_STATEMENT ||
        type == duckdb::StatementType::CREATE_STATEMENT) {
      // What DuckDB runs before this statement must land first: it may write
      // the rows an UPDATE here reads.
      if (!run_pending()) return last;
      try {
        if (piece.ddl ? StageInlinedTableDdl(*piece.ddl) : TryStage(*piece.statement)) {
          counts.staged++;
          last = nullptr;
          continue;
        }
      } catch (const std::exception& error) {
        return duckdb::make_uniq<duckdb::MaterializedQueryResult>(duckdb::ErrorData(error));
      }
    }
    counts.sql++;
    // The parser keeps each statement's own text.
    pending += piece.ddl ? std::string(piece.ddl_text) : piece.statement->query;
    pending += ";\n";
  }
  if (!run_pending()) return last;
  if (last) return last;
  ResultRows result({"Count"}, {duckdb::LogicalType::BIGINT});
  return result.Finish(context_.GetClientProperties());
}

bool CommitBatchStager::TryStage(const duckdb::SQLStatement& statement) {
  switch (statement.type) {
    case duckdb::StatementType::INSERT_STATEMENT:
      return TryStageInsert(statement);
    case duckdb::StatementType::UPDATE_STATEMENT:
      return TryStageUpdate(statement);
    case duckdb::StatementType::CREATE_STATEMENT:
      return TryStageCreateTable(statement);
    default:
      return false;
  }
}

namespace {

// The moraine schema `catalog`.`schema` if it is the metadata schema served
// by `where`; nullptr otherwise.
MoraineSchemaEntry* SchemaOfStore(duckdb::ClientContext& context, MoraineCatalog& moraine,
                                  const CatalogStore& where, const std::string& catalog,
                                  const std::string& schema) {
  if (catalog.empty() || schema.empty() || !StringUtil::CIEquals(catalog, moraine.GetName())) {
    return nullptr;
  }
  duckdb::CatalogTransaction transaction(moraine, context);
  auto schema_entry = moraine.LookupSchema(
      transaction, duckdb::EntryLookupInfo(duckdb::CatalogType::SCHEMA_ENTRY, schema),
      duckdb::OnEntryNotFound::RETURN_NULL);
  if (!schema_entry) return nullptr;
  auto& moraine_schema = schema_entry->Cast<MoraineSchemaEntry>();
  if (moraine_schema.catalog_store().store != where.store) return nullptr;
  return &moraine_schema;
}

// The moraine table `catalog`.`schema`.`table` if it is a table of the
// metadata schema served by `where`; nullptr otherwise.
MoraineTableEntry* TableOfStore(duckdb::ClientContext& context, MoraineCatalog& moraine,
                                const CatalogStore& where, const std::string& catalog,
                                const std::string& schema, const std::string& table) {
  auto* moraine_schema = SchemaOfStore(context, moraine, where, catalog, schema);
  if (!moraine_schema) return nullptr;
  auto entry =
      moraine_schema->LookupEntry(duckdb::CatalogTransaction(moraine, context),
                                  duckdb::EntryLookupInfo(duckdb::CatalogType::TABLE_ENTRY, table));
  if (!entry) return nullptr;
  return &entry->Cast<MoraineTableEntry>();
}

duckdb::timestamp_t TransactionStart(duckdb::ClientContext& context) {
  return duckdb::MetaTransaction::Get(context).start_timestamp;
}

}  // namespace

bool CommitBatchStager::TryStageInsert(const duckdb::SQLStatement& statement) {
  auto& insert = statement.Cast<duckdb::InsertStatement>();
  if (!insert.returning_list.empty() || insert.on_conflict_info || insert.default_values ||
      !insert.cte_map.map.empty() ||
      insert.column_order != duckdb::InsertColumnOrder::INSERT_BY_POSITION) {
    return false;
  }
  auto values = insert.GetValuesList();
  if (!values) return false;
  auto* table =
      TableOfStore(context_, catalog_, where_, insert.catalog, insert.schema, insert.table);
  if (!table) return false;
  const auto& spec = table->spec();
  const auto& codecs = table->codecs();
  // The column each value goes to; the others stay NULL, the default of
  // every moraine column.
  std::vector<size_t> targets;
  if (insert.columns.empty()) {
    for (size_t i = 0; i < spec.columns.size(); i++) targets.push_back(i);
  } else {
    for (auto& name : insert.columns) {
      auto index = TableColumn(*table, name);
      if (!index || std::find(targets.begin(), targets.end(), *index) != targets.end()) {
        return false;
      }
      targets.push_back(*index);
    }
  }
  auto constants = ConstantRows(*values, targets.size(), TransactionStart(context_));
  if (!constants) return false;
  std::vector<commit::Row> rows;
  for (auto& constant_row : *constants) {
    auto& row = rows.emplace_back(spec.columns.size());
    for (size_t i = 0; i < targets.size(); i++) {
      const auto& codec = codecs[targets[i]];
      auto cast = CastForColumn(constant_row[i], codec.type);
      if (!cast) return false;
      row[targets[i]] = CellFromValue(*cast, codec);
    }
  }
  MoraineTransaction::Get(context_, catalog_)
      .WithRows(where_, true, [&](commit::RowTransaction& transaction) {
        for (auto& row : rows) transaction.Insert(spec.name, row);
      });
  return true;
}

std::optional<std::string> CommitBatchStager::BoundTypeName(const std::string& written) {
  auto known = bound_type_names_.find(written);
  if (known == bound_type_names_.end()) {
    std::string bound;
    try {
      bound = duckdb::TransformStringToLogicalType(written, context_).ToString();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    known = bound_type_names_.emplace(written, std::move(bound)).first;
  }
  return known->second;
}

bool CommitBatchStager::StageTableCreate(const std::string& catalog, const std::string& schema,
                                         commit::TableSpec spec,
                                         duckdb::OnCreateConflict on_conflict) {
  if (spec.columns.empty()) return false;
  auto* moraine_schema = SchemaOfStore(context_, catalog_, where_, catalog, schema);
  if (!moraine_schema) return false;
  moraine_schema->CreateTableOfSpec(duckdb::CatalogTransaction(catalog_, context_), spec,
                                    on_conflict);
  return true;
}

bool CommitBatchStager::StageInlinedTableDdl(const InlinedTableDdl& ddl) {
  commit::TableSpec spec;
  spec.name = ddl.table;
  for (const auto& [name, type] : ddl.columns) {
    auto bound = BoundTypeName(type);
    if (!bound) return false;  // DuckDB refuses the statement in its own words
    spec.columns.push_back({name, std::move(*bound), true});
  }
  return StageTableCreate(ddl.catalog, ddl.schema, std::move(spec),
                          duckdb::OnCreateConflict::IGNORE_ON_CONFLICT);
}

bool CommitBatchStager::TryStageCreateTable(const duckdb::SQLStatement& statement) {
  auto& create = statement.Cast<duckdb::CreateStatement>();
  if (create.info->type != duckdb::CatalogType::TABLE_ENTRY) return false;
  auto& info = create.info->Cast<duckdb::CreateTableInfo>();
  if (info.query || info.temporary || !info.constraints.empty() ||
      (info.on_conflict != duckdb::OnCreateConflict::IGNORE_ON_CONFLICT &&
       info.on_conflict != duckdb::OnCreateConflict::ERROR_ON_CONFLICT)) {
    return false;
  }
  commit::TableSpec spec;
  spec.name = info.table;
  for (auto& column : info.columns.Logical()) {
    if (column.HasDefaultValue() || column.Generated() ||
        column.CompressionType() != duckdb::CompressionType::COMPRESSION_AUTO) {
      return false;
    }
    const auto& type = column.Type();
    auto bound = type.IsUnbound() ? BoundTypeName(type.ToString()) : type.ToString();
    if (!bound) return false;  // DuckDB refuses the statement in its own words
    spec.columns.push_back({column.Name(), std::move(*bound), true});
  }
  return StageTableCreate(info.catalog, info.schema, std::move(spec), info.on_conflict);
}

bool CommitBatchStager::TryStageUpdate(const duckdb::SQLStatement& statement) {
  auto& update = statement.Cast<duckdb::UpdateStatement>();
  if (!update.returning_list.empty() || !update.set_info || !update.table ||
      update.table->type != duckdb::TableReferenceType::BASE_TABLE) {
    return false;
  }
  auto& target = update.table->Cast<duckdb::BaseTableRef>();
  if (target.at_clause || !target.column_name_alias.empty()) return false;
  const auto start = TransactionStart(context_);
  std::optional<ValuesCte> cte;
  if (update.from_table || !update.cte_map.map.empty()) {
    cte = ValuesCteOf(update, start);
    if (!cte) return false;
  }
  auto* table = TableOfStore(context_, catalog_, where_, target.catalog_name, target.schema_name,
                             target.table_name);
  if (!table) return false;
  const auto& spec = table->spec();
  const auto& codecs = table->codecs();
  const Names names(target, *table, cte ? &*cte : nullptr);

  // SET: each column once, from a constant or a column of the CTE.
  auto& set = *update.set_info;
  if (set.columns.empty() || set.columns.size() != set.expressions.size()) return false;
  std::vector<std::pair<size_t, Operand>> assignments;
  for (size_t i = 0; i < set.columns.size(); i++) {
    auto column = TableColumn(*table, set.columns[i]);
    auto value = names.Resolve(*set.expressions[i], start);
    if (!column || !value || value->kind == Operand::Kind::kTableColumn) return false;
    for (auto& [assigned, unused] : assignments) {
      if (assigned == *column) return false;
    }
    assignments.emplace_back(*column, std::move(*value));
  }
  // The cell a SET value gives a column, from CTE row `cte_row` if it reads one.
  auto assigned_cell = [&](const Operand& value, size_t column,
                           const std::vector<Value>* cte_row) -> std::optional<commit::Cell> {
    std::optional<Value> result = value.kind == Operand::Kind::kConstant
                                      ? std::optional<Value>(value.constant)
                                      : std::optional<Value>((*cte_row)[value.column]);
    if (value.cast) result = CastForColumn(*result, *value.cast);
    if (result) result = CastForColumn(*result, codecs[column].type);
    if (!result) return std::nullopt;
    return CellFromValue(*result, codecs[column]);
  };

  // WHERE: equalities and IS NULL on the table's columns, in a form evaluated here.
  std::vector<Condition> conditions;
  if (set.condition && !CollectConditions(*set.condition, names, start, conditions)) return false;
  std::vector<commit::ColumnBound> bounds;
  for (auto& condition : conditions) {
    const auto& codec = codecs[condition.column];
    if (condition.test == Condition::Test::kIsNull) {
      bounds.push_back({condition.column, std::nullopt, std::nullopt, true});
      continue;
    }
    auto compare_with = [&](const Value& value) {
      if (!ComparableHere(codec, value)) return false;
      condition.expected.push_back(ExpectedCell(codec, value));
      return true;
    };
    if (condition.test == Condition::Test::kNotEqual) {
      // A constant no cell can hold (an integer outside BIGINT) differs from
      // every cell that is not NULL: DuckDB evaluates that one.
      if (!compare_with(condition.other.constant) ||
          (catalog::IsNull(condition.expected[0]) && !condition.other.constant.IsNull())) {
        return false;
      }
      continue;  // no bounds
    }
    if (condition.other.kind == Operand::Kind::kConstant) {
      if (!compare_with(condition.other.constant)) return false;
    } else {
      for (auto& row : cte->rows) {
        if (!compare_with(row[condition.other.column])) return false;
      }
    }
    std::optional<int64_t> lower, upper;
    for (auto& cell : condition.expected) {
      const auto* number = std::get_if<int64_t>(&cell);
      if (!number) continue;
      lower = lower ? std::min(*lower, *number) : *number;
      upper = upper ? std::max(*upper, *number) : *number;
    }
    if (lower) bounds.push_back({condition.column, lower, upper, false});
  }
  // Whether `row` meets the conditions: those on constants, and with CTE row
  // `cte_row` those on the CTE too.
  auto matches = [&](const commit::Row& row, std::optional<size_t> cte_row) {
    for (auto& condition : conditions) {
      const auto& cell = row[condition.column];
      if (condition.test == Condition::Test::kIsNull) {
        if (!catalog::IsNull(cell)) return false;
      } else if (condition.test == Condition::Test::kNotEqual) {
        if (!NotEqual(cell, condition.expected[0])) return false;
      } else if (condition.other.kind == Operand::Kind::kConstant) {
        if (!Equal(cell, condition.expected[0])) return false;
      } else if (cte_row && !Equal(cell, condition.expected[*cte_row])) {
        return false;
      }
    }
    return true;
  };
  // The CTE rows by the cell the first equality with a CTE column expects.
  const Condition* indexed = nullptr;
  CteRowsByCell cte_rows_by_cell;
  for (auto& condition : conditions) {
    if (condition.test != Condition::Test::kEqual ||
        condition.other.kind != Operand::Kind::kCteColumn) {
      continue;
    }
    indexed = &condition;
    cte_rows_by_cell.reserve(condition.expected.size());
    for (size_t index = 0; index < condition.expected.size(); index++) {
      // A NULL cell equals no row: that CTE row is the source of none.
      if (!catalog::IsNull(condition.expected[index])) {
        cte_rows_by_cell.emplace(condition.expected[index], index);
      }
    }
    break;
  }

  // Every change is worked out before the first is staged, so a statement
  // that turns out to need DuckDB leaves nothing behind.
  std::vector<std::pair<commit::RowHandle, commit::Row>> changes;
  bool plain = true;
  auto& transaction = MoraineTransaction::Get(context_, catalog_);
  // The rows to change are picked before the transaction keeps anything of
  // them (a DELETE of inlined rows ends a tenth of a large table's rows);
  // `source` is the CTE row of the row picked last, which is visited next.
  const std::vector<Value>* source = nullptr;
  commit::ScanRequest request{bounds, std::nullopt, true, nullptr};
  request.candidates = [&](const commit::Row& row) {
    if (!plain || !matches(row, std::nullopt)) return false;
    source = nullptr;
    if (!cte) return true;
    auto consider = [&](size_t index) {
      if (!matches(row, index)) return;
      if (source) {
        plain = false;  // two source rows: DuckDB decides
        return;
      }
      source = &cte->rows[index];
    };
    if (indexed) {
      auto [first, last] = cte_rows_by_cell.equal_range(row[indexed->column]);
      for (auto it = first; it != last && plain; ++it) consider(it->second);
    } else {
      for (size_t index = 0; index < cte->rows.size() && plain; index++) consider(index);
    }
    return plain && source;
  };
  transaction.WithRows(where_, false, [&](commit::RowTransaction& rows) {
    rows.ScanProjected(spec.name, request, [&](commit::RowHandle handle, const commit::Row& row) {
      if (!plain) return;
      commit::Row changed = row;
      for (auto& [column, value] : assignments) {
        auto cell = assigned_cell(value, column, source);
        if (!cell) {
          plain = false;
          return;
        }
        changed[column] = std::move(*cell);
      }
      changes.emplace_back(handle, std::move(changed));
    });
  });
  if (!plain) return false;
  if (changes.empty()) return true;
  transaction.WithRows(where_, true, [&](commit::RowTransaction& rows) {
    for (auto& [handle, row] : changes) rows.Update(spec.name, handle, row);
  });
  return true;
}

}  // namespace moraine::ducklake_adapter
