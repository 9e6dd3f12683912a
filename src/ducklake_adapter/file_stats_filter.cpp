#include "ducklake_adapter/file_stats_filter.h"

#include <algorithm>
#include <utility>

#include "duckdb/common/operator/cast_operators.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"

namespace moraine::ducklake_adapter {
namespace {

// SQL's three truth values.
enum class Truth : uint8_t { kFalse, kTrue, kNull };

Truth Not(Truth value) {
  if (value == Truth::kNull) return value;
  return value == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
}

enum Stat : unsigned {
  kMin = 1,
  kMax = 2,
  kNullCount = 4,
  kValueCount = 8,
  kContainsNan = 16,
};

// Whether DuckLake compares min and max with a constant of this type as
// values (its RequiresValueComparison: numeric, temporal, boolean) rather
// than as text.
bool ComparedAsValues(const duckdb::LogicalType& type) {
  return type.IsNumeric() || type.IsTemporal() || type.id() == duckdb::LogicalTypeId::BOOLEAN;
}

// The constant types whose comparison in DuckLake's SQL (its literal against
// TRY_CAST(stat AS type), or against the stat's text) moraine reproduces.
bool Mirrored(const duckdb::LogicalType& type) {
  using duckdb::LogicalTypeId;
  switch (type.id()) {
    case LogicalTypeId::BOOLEAN:
    case LogicalTypeId::TINYINT:
    case LogicalTypeId::SMALLINT:
    case LogicalTypeId::INTEGER:
    case LogicalTypeId::BIGINT:
    case LogicalTypeId::HUGEINT:
    case LogicalTypeId::UTINYINT:
    case LogicalTypeId::USMALLINT:
    case LogicalTypeId::UINTEGER:
    case LogicalTypeId::UBIGINT:
    case LogicalTypeId::DOUBLE:
    case LogicalTypeId::DECIMAL:
    case LogicalTypeId::DATE:
    case LogicalTypeId::TIMESTAMP:
    case LogicalTypeId::VARCHAR:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct FileStatsFilter::Node {
  enum class Kind { kCompare, kPositive, kContainsNan, kAnd, kOr, kNot };
  enum class Op { kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kEqual };
  Kind kind;
  // kCompare: `stat op constant`; kPositive: `stat > 0`.
  Stat stat = kMin;
  Op op = Op::kEqual;
  duckdb::Value constant;
  bool as_values = false;  // kCompare: min/max cast to the constant's type
  std::vector<std::shared_ptr<const Node>> children;

  Truth Evaluate(const FileColumnStats& stats) const;
  Truth Connective(const FileColumnStats& stats, Truth dominant) const;
  // Appends this node's comparisons and its children's to `compares`.
  void CollectComparisons(std::vector<const Node*>& compares) const;
};

namespace {

using Node = FileStatsFilter::Node;
using NodePtr = std::shared_ptr<const Node>;

// What DuckLake writes for one filter: a condition, none (""), or something
// moraine does not mirror. The stats a condition reads are gathered apart, in
// `read`, as DuckLake gathers them into one set as it goes: a child abandoned
// for want of a condition still adds what it read, and the file's NULL checks
// name it.
struct Built {
  bool mirrored = true;
  NodePtr node;  // null: DuckLake writes no condition
};

Built Refused() { return {false, nullptr}; }

NodePtr Combine(Node::Kind kind, std::vector<NodePtr> children) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->children = std::move(children);
  return node;
}

NodePtr Compare(Stat stat, Node::Op op, const duckdb::Value& constant) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kCompare;
  node->stat = stat;
  node->op = op;
  node->as_values = ComparedAsValues(constant.type());
  // Compared as text, the constant is its SQL literal's text.
  node->constant = node->as_values ? constant : duckdb::Value(constant.ToString());
  return node;
}

NodePtr Leaf(Node::Kind kind, Stat stat) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->stat = stat;
  return node;
}

// DuckLake's GenerateConstantFilter.
Built ConstantCondition(duckdb::ExpressionType comparison, const duckdb::Value& constant,
                        unsigned& read) {
  using duckdb::ExpressionType;
  using Op = Node::Op;
  switch (comparison) {
    case ExpressionType::COMPARE_EQUAL:  // C BETWEEN min AND max
      read |= kMin | kMax;
      return {true, Combine(Node::Kind::kAnd, {Compare(kMin, Op::kLessOrEqual, constant),
                                               Compare(kMax, Op::kGreaterOrEqual, constant)})};
    case ExpressionType::COMPARE_NOTEQUAL:  // NOT (min = C AND max = C)
      read |= kMin | kMax;
      return {true, Combine(Node::Kind::kNot,
                            {Combine(Node::Kind::kAnd, {Compare(kMin, Op::kEqual, constant),
                                                        Compare(kMax, Op::kEqual, constant)})})};
    case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
      read |= kMax;
      return {true, Compare(kMax, Op::kGreaterOrEqual, constant)};
    case ExpressionType::COMPARE_GREATERTHAN:
      read |= kMax;
      return {true, Compare(kMax, Op::kGreater, constant)};
    case ExpressionType::COMPARE_LESSTHANOREQUALTO:
      read |= kMin;
      return {true, Compare(kMin, Op::kLessOrEqual, constant)};
    case ExpressionType::COMPARE_LESSTHAN:
      read |= kMin;
      return {true, Compare(kMin, Op::kLess, constant)};
    default:
      return {};
  }
}

// DuckLake's GenerateConstantFilterDouble.
Built DoubleCondition(duckdb::ExpressionType comparison, const duckdb::Value& constant,
                      unsigned& read) {
  using duckdb::ExpressionType;
  const bool nan = duckdb::Value::IsNan(constant.GetValue<double>());
  switch (comparison) {
    case ExpressionType::COMPARE_EQUAL:
      if (nan) {
        read |= kContainsNan;
        return {true, Leaf(Node::Kind::kContainsNan, kContainsNan)};
      }
      return ConstantCondition(comparison, constant, read);
    case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
    case ExpressionType::COMPARE_GREATERTHAN: {
      if (nan) return {};
      Built built = ConstantCondition(comparison, constant, read);
      if (!built.node) return built;
      read |= kContainsNan;
      built.node =
          Combine(Node::Kind::kOr, {built.node, Leaf(Node::Kind::kContainsNan, kContainsNan)});
      return built;
    }
    case ExpressionType::COMPARE_NOTEQUAL:
    case ExpressionType::COMPARE_LESSTHANOREQUALTO:
    case ExpressionType::COMPARE_LESSTHAN:
      if (nan) return {};
      return ConstantCondition(comparison, constant, read);
    default:
      return {};
  }
}

// DuckLake's GenerateFilterPushdown for a constant comparison.
Built ComparisonCondition(duckdb::ExpressionType comparison, const duckdb::Value& constant,
                          unsigned& read) {
  using duckdb::LogicalTypeId;
  const auto& type = constant.type();
  if (type.id() == LogicalTypeId::BLOB) return {};
  if (!Mirrored(type)) return Refused();
  if (type.id() == LogicalTypeId::DOUBLE) return DoubleCondition(comparison, constant, read);
  return ConstantCondition(comparison, constant, read);
}

// DuckLake's GenerateFilterPushdown.
Built Condition(const duckdb::TableFilter& filter, unsigned& read) {
  using duckdb::TableFilterType;
  switch (filter.filter_type) {
    case TableFilterType::CONSTANT_COMPARISON: {
      const auto& constant = filter.Cast<duckdb::ConstantFilter>();
      return ComparisonCondition(constant.comparison_type, constant.constant, read);
    }
    case TableFilterType::IS_NULL:
      read |= kNullCount;
      return {true, Leaf(Node::Kind::kPositive, kNullCount)};
    case TableFilterType::IS_NOT_NULL:
      read |= kValueCount;
      return {true, Leaf(Node::Kind::kPositive, kValueCount)};
    case TableFilterType::CONJUNCTION_OR: {
      std::vector<NodePtr> children;
      for (const auto& child : filter.Cast<duckdb::ConjunctionOrFilter>().child_filters) {
        Built built = Condition(*child, read);
        if (!built.mirrored) return built;
        if (!built.node) return {};  // one child without a condition: none at all
        children.push_back(built.node);
      }
      if (children.empty()) return {};
      return {true, Combine(Node::Kind::kOr, std::move(children))};
    }
    case TableFilterType::CONJUNCTION_AND: {
      std::vector<NodePtr> children;
      for (const auto& child : filter.Cast<duckdb::ConjunctionAndFilter>().child_filters) {
        Built built = Condition(*child, read);
        if (!built.mirrored) return built;
        if (built.node) children.push_back(built.node);  // the others still prune
      }
      if (children.empty()) return {};
      return {true, Combine(Node::Kind::kAnd, std::move(children))};
    }
    case TableFilterType::OPTIONAL_FILTER: {
      const auto& child = filter.Cast<duckdb::OptionalFilter>().child_filter;
      if (!child) return {};
      // A Top-N scan's dynamic filter also orders DuckLake's file list.
      if (child->filter_type == TableFilterType::DYNAMIC_FILTER) return Refused();
      return Condition(*child, read);
    }
    case TableFilterType::IN_FILTER: {
      std::vector<NodePtr> children;
      for (const auto& value : filter.Cast<duckdb::InFilter>().values) {
        Built built = ComparisonCondition(duckdb::ExpressionType::COMPARE_EQUAL, value, read);
        if (!built.mirrored) return built;
        if (!built.node) return {};
        children.push_back(built.node);
      }
      if (children.empty()) return {};
      return {true, Combine(Node::Kind::kOr, std::move(children))};
    }
    case TableFilterType::DYNAMIC_FILTER:
      return Refused();
    default:
      return {};
  }
}

// `text` parsed as DuckDB's cast from VARCHAR to T parses it (strict off, as
// TRY_CAST) and made a value by `make`, or nullopt when it does not parse.
template <class T>
std::optional<duckdb::Value> ParsedValue(const std::string& text, duckdb::Value (*make)(T value)) {
  T parsed;
  if (!duckdb::TryCast::Operation<duckdb::string_t, T>(
          duckdb::string_t(text.data(), static_cast<uint32_t>(text.size())), parsed, false)) {
    return std::nullopt;
  }
  return make(parsed);
}

// A stat cast as DuckLake's TRY_CAST(stat AS type) does: NULL when it fails.
// Given no error message to fill, some casts throw instead of failing (a
// date out of range): both are a failed cast. The integer types and DOUBLE
// are parsed by the cast's own operation directly: a generic cast looks its
// function up and builds vectors for each of a table's files.
std::optional<duckdb::Value> StatAs(const std::string& text, const Node& node) {
  using duckdb::LogicalTypeId;
  using duckdb::Value;
  if (!node.as_values) return Value(text);
  try {
    switch (node.constant.type().id()) {
      case LogicalTypeId::TINYINT:
        return ParsedValue<int8_t>(text, &Value::TINYINT);
      case LogicalTypeId::SMALLINT:
        return ParsedValue<int16_t>(text, &Value::SMALLINT);
      case LogicalTypeId::INTEGER:
        return ParsedValue<int32_t>(text, &Value::INTEGER);
      case LogicalTypeId::BIGINT:
        return ParsedValue<int64_t>(text, &Value::BIGINT);
      case LogicalTypeId::UTINYINT:
        return ParsedValue<uint8_t>(text, &Value::UTINYINT);
      case LogicalTypeId::USMALLINT:
        return ParsedValue<uint16_t>(text, &Value::USMALLINT);
      case LogicalTypeId::UINTEGER:
        return ParsedValue<uint32_t>(text, &Value::UINTEGER);
      case LogicalTypeId::UBIGINT:
        return ParsedValue<uint64_t>(text, &Value::UBIGINT);
      case LogicalTypeId::DOUBLE:
        return ParsedValue<double>(text, &Value::DOUBLE);
      default:
        break;
    }
    Value cast;
    std::string error;
    if (!Value(text).DefaultTryCastAs(node.constant.type(), cast, &error) || cast.IsNull()) {
      return std::nullopt;
    }
    return cast;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Truth FromBool(bool value) { return value ? Truth::kTrue : Truth::kFalse; }

// Whether StatAs parses min and max as this type by its cast operation
// alone, and every integer in a range it casts casts too.
bool ParsedDirectly(const duckdb::LogicalType& type) {
  using duckdb::LogicalTypeId;
  switch (type.id()) {
    case LogicalTypeId::TINYINT:
    case LogicalTypeId::SMALLINT:
    case LogicalTypeId::INTEGER:
    case LogicalTypeId::BIGINT:
    case LogicalTypeId::UTINYINT:
    case LogicalTypeId::USMALLINT:
    case LogicalTypeId::UINTEGER:
    case LogicalTypeId::UBIGINT:
    case LogicalTypeId::DOUBLE:
      return true;
    default:
      return false;
  }
}

}  // namespace

void FileStatsFilter::Node::CollectComparisons(std::vector<const Node*>& compares) const {
  if (kind == Kind::kCompare) compares.push_back(this);
  for (const auto& child : children) child->CollectComparisons(compares);
}

// SQL's AND (`dominant` false) or OR (`dominant` true) of the children: the
// dominant value if a child has it, else NULL if a child is NULL, else the
// other value.
Truth FileStatsFilter::Node::Connective(const FileColumnStats& stats, Truth dominant) const {
  Truth result = Not(dominant);
  for (const auto& child : children) {
    const Truth value = child->Evaluate(stats);
    if (value == dominant) return value;
    if (value == Truth::kNull) result = value;
  }
  return result;
}

Truth FileStatsFilter::Node::Evaluate(const FileColumnStats& stats) const {
  switch (kind) {
    case Kind::kCompare: {
      const auto& text = stat == kMin ? stats.min_value : stats.max_value;
      if (!text) return Truth::kNull;
      const auto value = StatAs(*text, *this);
      if (!value) return Truth::kNull;
      switch (op) {
        case Op::kLess:
          return FromBool(*value < constant);
        case Op::kLessOrEqual:
          return FromBool(*value <= constant);
        case Op::kGreater:
          return FromBool(*value > constant);
        case Op::kGreaterOrEqual:
          return FromBool(*value >= constant);
        case Op::kEqual:
          return FromBool(*value == constant);
      }
      return Truth::kNull;
    }
    case Kind::kPositive: {
      const auto& count = stat == kNullCount ? stats.null_count : stats.value_count;
      if (!count) return Truth::kNull;
      return FromBool(*count > 0);
    }
    case Kind::kContainsNan:
      if (!stats.contains_nan) return Truth::kNull;
      return FromBool(*stats.contains_nan);
    case Kind::kNot:
      return Not(children.front()->Evaluate(stats));
    case Kind::kAnd:
      return Connective(stats, Truth::kFalse);
    case Kind::kOr:
      return Connective(stats, Truth::kTrue);
  }
  return Truth::kNull;
}

bool FileStatsFilter::MayKeepAnyOf(const FileGroupStats& group) const {
  if (!root_) return true;
  // The counts as Keeps reads them: a count above zero in some file is the
  // greatest count above zero, a NaN in some file any NaN.
  FileColumnStats bounds{std::nullopt, std::nullopt, group.max_null_count, group.max_value_count,
                         group.any_contains_nan};
  if (stats_read_ & (kMin | kMax)) {
    if (group_bounds_ == GroupBounds::kText) {
      bounds.min_value = group.min_text;
      bounds.max_value = group.max_text;
    } else if (group_bounds_ == GroupBounds::kIntegers && group.integers) {
      bounds.min_value = std::to_string(group.integers->first);
      bounds.max_value = std::to_string(group.integers->second);
      // A bound a comparison's type cannot hold: the files' values between
      // the bounds might not cast either, which the group's bounds do not show.
      for (const Node* node : comparisons_) {
        if (!StatAs(*bounds.min_value, *node) || !StatAs(*bounds.max_value, *node)) return true;
      }
    } else {
      return true;
    }
  }
  return Keeps(&bounds);
}

std::optional<FileStatsFilter> FileStatsFilter::FromTableFilter(const duckdb::TableFilter& filter) {
  unsigned read = 0;
  Built built = Condition(filter, read);
  if (!built.mirrored) return std::nullopt;
  return FileStatsFilter(built.node, built.node ? read : 0);
}

FileStatsFilter::FileStatsFilter(std::shared_ptr<const Node> root, unsigned stats_read)
    : root_(std::move(root)), stats_read_(stats_read) {
  if (!root_) return;
  root_->CollectComparisons(comparisons_);
  if (std::all_of(comparisons_.begin(), comparisons_.end(),
                  [](const Node* node) { return !node->as_values; })) {
    group_bounds_ = GroupBounds::kText;
  } else if (std::all_of(comparisons_.begin(), comparisons_.end(), [](const Node* node) {
               return node->as_values && ParsedDirectly(node->constant.type());
             })) {
    group_bounds_ = GroupBounds::kIntegers;
  }
}

bool FileStatsFilter::Keeps(const FileColumnStats* stats) const {
  if (!root_ || !stats) return true;
  // (value_count IS NULL OR value_count > 0), when min or max is read.
  if ((stats_read_ & (kMin | kMax)) && stats->value_count && *stats->value_count <= 0) {
    return false;
  }
  // <stat> IS NULL OR ..., for each stat the condition reads.
  if (((stats_read_ & kMin) && !stats->min_value) || ((stats_read_ & kMax) && !stats->max_value) ||
      ((stats_read_ & kNullCount) && !stats->null_count) ||
      ((stats_read_ & kValueCount) && !stats->value_count) ||
      ((stats_read_ & kContainsNan) && !stats->contains_nan)) {
    return true;
  }
  return root_->Evaluate(*stats) == Truth::kTrue;
}

}  // namespace moraine::ducklake_adapter
