// INSERT, UPDATE and DELETE on moraine tables: physical operators that turn
// DuckDB chunks into RowTransaction calls. They stage only; nothing reaches
// the store before the transaction commits.
#include <unordered_set>

#include "duckdb/common/exception.hpp"
#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/execution/physical_operator.hpp"
#include "duckdb/execution/physical_plan_generator.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/operator/logical_delete.hpp"
#include "duckdb/planner/operator/logical_insert.hpp"
#include "duckdb/planner/operator/logical_update.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_table_entry.h"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {
namespace {

struct CountSinkState : public duckdb::GlobalSinkState {
  int64_t count = 0;
  // A join under UPDATE/DELETE may deliver a row twice; it counts once.
  std::unordered_set<commit::RowHandle> touched;
};

// Sinks its input, then emits one row: the number of rows affected.
class DmlOperator : public duckdb::PhysicalOperator {
 public:
  DmlOperator(duckdb::PhysicalPlan& plan, MoraineTableEntry& table, duckdb::idx_t cardinality)
      : duckdb::PhysicalOperator(plan, duckdb::PhysicalOperatorType::EXTENSION,
                                 {duckdb::LogicalType::BIGINT}, cardinality),
        table_(table) {}

  bool IsSink() const override { return true; }
  bool ParallelSink() const override { return false; }
  bool IsSource() const override { return true; }

  duckdb::unique_ptr<duckdb::GlobalSinkState> GetGlobalSinkState(
      duckdb::ClientContext&) const override {
    return duckdb::make_uniq<CountSinkState>();
  }

 protected:
  duckdb::SourceResultType GetDataInternal(duckdb::ExecutionContext&, duckdb::DataChunk& chunk,
                                           duckdb::OperatorSourceInput&) const override {
    chunk.data[0].SetValue(0, duckdb::Value::BIGINT(sink_state->Cast<CountSinkState>().count));
    SetRowCount(chunk, 1);
    return duckdb::SourceResultType::FINISHED;
  }

  MoraineTransaction& Transaction(duckdb::ExecutionContext& context) const {
    return MoraineTransaction::Get(context.client, table_.ParentCatalog());
  }
  // The store of the table's schema.
  const CatalogStore& Where() const {
    return table_.ParentSchema().Cast<MoraineSchemaEntry>().catalog_store();
  }
  static commit::RowHandle HandleAt(duckdb::DataChunk& chunk, duckdb::idx_t column,
                                    duckdb::idx_t row) {
    return static_cast<commit::RowHandle>(chunk.GetValue(column, row).GetValue<int64_t>());
  }

  MoraineTableEntry& table_;
};

class InsertOperator : public DmlOperator {
 public:
  InsertOperator(duckdb::PhysicalPlan& plan, MoraineTableEntry& table, duckdb::LogicalInsert& op)
      : DmlOperator(plan, table, op.estimated_cardinality),
        column_index_map_(op.column_index_map),
        bound_defaults_(std::move(op.bound_defaults)) {}

  duckdb::string GetName() const override { return "MORAINE_INSERT"; }

  duckdb::SinkResultType Sink(duckdb::ExecutionContext& context, duckdb::DataChunk& chunk,
                              duckdb::OperatorSinkInput& input) const override {
    auto& codecs = table_.codecs();
    // Lay the input out as full rows: an INSERT with a column list leaves
    // the other columns to their defaults.
    duckdb::DataChunk full;
    full.Initialize(context.client, table_.GetTypes());
    SetRowCount(full, chunk.size());
    duckdb::ExpressionExecutor defaults(context.client, bound_defaults_);
    for (duckdb::idx_t i = 0; i < codecs.size(); i++) {
      if (column_index_map_.empty()) {
        full.data[i].Reference(chunk.data[i]);
      } else if (auto source = column_index_map_[duckdb::PhysicalIndex(i)];
                 source == duckdb::DConstants::INVALID_INDEX) {
        defaults.SetChunk(chunk);
        defaults.ExecuteExpression(i, full.data[i]);
      } else {
        full.data[i].Reference(chunk.data[source]);
      }
    }
    std::vector<commit::Row> rows(full.size(), commit::Row(codecs.size()));
    for (duckdb::idx_t c = 0; c < codecs.size(); c++) {
      for (duckdb::idx_t r = 0; r < full.size(); r++) {
        rows[r][c] = CellFromValue(full.GetValue(c, r), codecs[c]);
      }
    }
    Transaction(context).WithRows(Where(), true, [&](commit::RowTransaction& transaction) {
      for (auto& row : rows) transaction.Insert(table_.spec().name, row);
    });
    input.global_state.Cast<CountSinkState>().count += static_cast<int64_t>(rows.size());
    return duckdb::SinkResultType::NEED_MORE_INPUT;
  }

 private:
  duckdb::physical_index_vector_t<duckdb::idx_t> column_index_map_;
  duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> bound_defaults_;
};

class DeleteOperator : public DmlOperator {
 public:
  DeleteOperator(duckdb::PhysicalPlan& plan, MoraineTableEntry& table, duckdb::idx_t row_id_column,
                 duckdb::idx_t cardinality)
      : DmlOperator(plan, table, cardinality), row_id_column_(row_id_column) {}

  duckdb::string GetName() const override { return "MORAINE_DELETE"; }

  duckdb::SinkResultType Sink(duckdb::ExecutionContext& context, duckdb::DataChunk& chunk,
                              duckdb::OperatorSinkInput& input) const override {
    auto& state = input.global_state.Cast<CountSinkState>();
    std::vector<commit::RowHandle> handles;
    for (duckdb::idx_t r = 0; r < chunk.size(); r++) {
      auto handle = HandleAt(chunk, row_id_column_, r);
      if (state.touched.insert(handle).second) handles.push_back(handle);
    }
    Transaction(context).WithRows(Where(), true, [&](commit::RowTransaction& transaction) {
      for (auto handle : handles) transaction.Delete(table_.spec().name, handle);
    });
    state.count += static_cast<int64_t>(handles.size());
    return duckdb::SinkResultType::NEED_MORE_INPUT;
  }

 private:
  duckdb::idx_t row_id_column_;
};

class UpdateOperator : public DmlOperator {
 public:
  UpdateOperator(duckdb::PhysicalPlan& plan, MoraineTableEntry& table, duckdb::LogicalUpdate& op)
      : DmlOperator(plan, table, op.estimated_cardinality),
        columns_(op.columns),
        expressions_(std::move(op.expressions)),
        bound_defaults_(std::move(op.bound_defaults)) {}

  duckdb::string GetName() const override { return "MORAINE_UPDATE"; }

  duckdb::SinkResultType Sink(duckdb::ExecutionContext& context, duckdb::DataChunk& chunk,
                              duckdb::OperatorSinkInput& input) const override {
    auto& state = input.global_state.Cast<CountSinkState>();
    auto& codecs = table_.codecs();
    auto& name = table_.spec().name;
    // The child delivers the new values, then the row id as its last column.
    const auto row_id_column = chunk.ColumnCount() - 1;
    std::vector<duckdb::Vector> values;
    duckdb::ExpressionExecutor defaults(context.client, bound_defaults_);
    for (size_t i = 0; i < expressions_.size(); i++) {
      auto& expression = *expressions_[i];
      if (expression.GetExpressionType() == duckdb::ExpressionType::VALUE_DEFAULT) {
        duckdb::Vector value(codecs[columns_[i].index].type, chunk.size());
        defaults.SetChunk(chunk);
        defaults.ExecuteExpression(columns_[i].index, value);
        values.push_back(std::move(value));
      } else {
        auto& source =
            chunk.data[ReferencedColumn(expression.Cast<duckdb::BoundReferenceExpression>())];
        values.emplace_back(source.GetType());
        values.back().Reference(source);
      }
    }
    std::vector<commit::RowHandle> handles;
    std::vector<duckdb::idx_t> positions;
    for (duckdb::idx_t r = 0; r < chunk.size(); r++) {
      auto handle = HandleAt(chunk, row_id_column, r);
      if (!state.touched.insert(handle).second) continue;
      handles.push_back(handle);
      positions.push_back(r);
    }
    // DuckDB hands over only the changed columns; the rest of the new row
    // is the old row as this transaction sees it.
    std::vector<std::vector<commit::Cell>> changed(handles.size());
    for (size_t u = 0; u < handles.size(); u++) {
      for (size_t i = 0; i < columns_.size(); i++) {
        changed[u].push_back(
            CellFromValue(values[i].GetValue(positions[u]), codecs[columns_[i].index]));
      }
    }
    Transaction(context).WithRows(Where(), true, [&](commit::RowTransaction& rows) {
      for (size_t u = 0; u < handles.size(); u++) {
        auto row = rows.GetRow(handles[u]);
        for (size_t i = 0; i < columns_.size(); i++) row[columns_[i].index] = changed[u][i];
        rows.Update(name, handles[u], row);
      }
    });
    state.count += static_cast<int64_t>(handles.size());
    return duckdb::SinkResultType::NEED_MORE_INPUT;
  }

 private:
  std::vector<duckdb::PhysicalIndex> columns_;
  duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> expressions_;
  duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> bound_defaults_;
};

}  // namespace

duckdb::PhysicalOperator& MoraineCatalog::PlanInsert(
    duckdb::ClientContext&, duckdb::PhysicalPlanGenerator& planner, duckdb::LogicalInsert& op,
    duckdb::optional_ptr<duckdb::PhysicalOperator> plan) {
  if (op.return_chunk) throw duckdb::NotImplementedException("moraine: INSERT ... RETURNING");
  if (op.on_conflict_info.action_type != duckdb::OnConflictAction::THROW) {
    throw duckdb::NotImplementedException("moraine: INSERT ... ON CONFLICT");
  }
  if (!plan) throw duckdb::NotImplementedException("moraine: INSERT without input rows");
  auto& insert = planner.Make<InsertOperator>(op.table.Cast<MoraineTableEntry>(), op);
  insert.children.push_back(*plan);
  return insert;
}

duckdb::PhysicalOperator& MoraineCatalog::PlanDelete(duckdb::ClientContext&,
                                                     duckdb::PhysicalPlanGenerator& planner,
                                                     duckdb::LogicalDelete& op,
                                                     duckdb::PhysicalOperator& plan) {
  if (op.return_chunk) throw duckdb::NotImplementedException("moraine: DELETE ... RETURNING");
  auto row_id_column =
      ReferencedColumn(op.expressions[0]->Cast<duckdb::BoundReferenceExpression>());
  auto& del = planner.Make<DeleteOperator>(op.table.Cast<MoraineTableEntry>(), row_id_column,
                                           op.estimated_cardinality);
  del.children.push_back(plan);
  return del;
}

duckdb::PhysicalOperator& MoraineCatalog::PlanUpdate(duckdb::ClientContext&,
                                                     duckdb::PhysicalPlanGenerator& planner,
                                                     duckdb::LogicalUpdate& op,
                                                     duckdb::PhysicalOperator& plan) {
  if (op.return_chunk) throw duckdb::NotImplementedException("moraine: UPDATE ... RETURNING");
  if (op.update_is_del_and_insert) {
    throw duckdb::NotImplementedException("moraine: UPDATE as delete + insert");
  }
  auto& update = planner.Make<UpdateOperator>(op.table.Cast<MoraineTableEntry>(), op);
  update.children.push_back(plan);
  return update;
}

}  // namespace moraine::duckdb_shim
