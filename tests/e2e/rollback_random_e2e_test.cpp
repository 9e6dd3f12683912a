// moraine_rollback against stock DuckLake on random histories (issue #34):
// for each seed, random DuckLake statements (tables created, renamed and
// dropped; columns added, renamed and dropped; inlined and Parquet inserts,
// deletes, updates; comments, views, compactions and flushes) run on a moraine
// lake, and on a stock DuckDB-file lake up to a random snapshot n. The moraine
// lake goes on, then rolls back to n: its whole catalog must read as the
// stock one's, and both must agree again after the same further statements,
// and after an expiry and cleanup of everything but the head. Compactions
// and flushes after n leave files holding rows of several snapshots, which
// the rollback reads apart (catalog_revert.h).
// MORAINE_ROLLBACK_SEEDS=N runs N seeds (default 6).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/ducklake_session.h"
#include "support/lake_sql.h"
#include "support/temp_dir.h"
#include "support/user_catalog.h"

namespace moraine {
namespace {

using test::Rows;

// The lake's tables as the statements so far left them, so that every
// statement drawn is valid.
struct Model {
  struct Table {
    std::vector<std::string> extra_columns;  // besides `a INTEGER`, which stays
  };
  std::map<std::string, Table> tables;
  std::vector<std::string> views;
  int next_name = 0;
};

class History {
 public:
  explicit History(uint32_t seed) : random_(seed) {}

  // A valid statement on `model`, `$L` naming the catalog.
  std::string Next(Model& model) {
    if (model.tables.empty() || Draw(8) == 0) {
      const std::string name = "t" + std::to_string(model.next_name++);
      model.tables[name] = {};
      return "CREATE TABLE $L." + name + " (a INTEGER)";
    }
    auto table = model.tables.begin();
    std::advance(table, Draw(model.tables.size()));
    const std::string name = table->first;
    auto& columns = table->second.extra_columns;
    const std::string values = std::to_string(Draw(1000));
    switch (Draw(16)) {
      case 0:
      case 1:
      case 2:
        return "INSERT INTO $L." + name + " (a) SELECT range FROM range(" + values + ", " + values +
               " + " + std::to_string(1 + Draw(4)) + ")";
      case 3:
      case 4:
        return "INSERT INTO $L." + name + " (a) SELECT range FROM range(" + values + ", " + values +
               " + 40)";
      case 5:
        return "DELETE FROM $L." + name + " WHERE a % 3 = " + std::to_string(Draw(3));
      case 6:
        return "UPDATE $L." + name + " SET a = a + 1 WHERE a % 5 = " + std::to_string(Draw(5));
      case 7: {
        const std::string column = "c" + std::to_string(model.next_name++);
        columns.push_back(column);
        return "ALTER TABLE $L." + name + " ADD COLUMN " + column + " INTEGER DEFAULT " + values;
      }
      case 8:
        if (columns.empty()) return "COMMENT ON TABLE $L." + name + " IS 'c" + values + "'";
        {
          const std::string column = columns.back();
          columns.pop_back();
          return "ALTER TABLE $L." + name + " DROP COLUMN " + column;
        }
      case 9:
        if (columns.empty()) return "COMMENT ON TABLE $L." + name + " IS 'd" + values + "'";
        {
          const std::string renamed = "r" + std::to_string(model.next_name++);
          const std::string column = columns.front();
          columns.front() = renamed;
          return "ALTER TABLE $L." + name + " RENAME COLUMN " + column + " TO " + renamed;
        }
      case 10: {
        const std::string renamed = "t" + std::to_string(model.next_name++);
        model.tables[renamed] = table->second;
        model.tables.erase(name);
        return "ALTER TABLE $L." + name + " RENAME TO " + renamed;
      }
      case 11:
        model.tables.erase(name);
        return "DROP TABLE $L." + name;
      case 12:
        return "COMMENT ON TABLE $L." + name + " IS 'e" + values + "'";
      case 13:
        if (!model.views.empty() && Draw(2) == 0) {
          const std::string view = model.views.back();
          model.views.pop_back();
          return "DROP VIEW $L." + view;
        } else {
          const std::string view = "v" + std::to_string(model.next_name++);
          model.views.push_back(view);
          return "CREATE VIEW $L." + view + " AS SELECT " + values + " AS x";
        }
      case 14:
        return "CALL ducklake_merge_adjacent_files('$L')";
      default:
        return "CALL ducklake_flush_inlined_data('$L')";
    }
  }

 private:
  size_t Draw(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }
  std::mt19937 random_;
};

int Seeds() {
  const char* seeds = std::getenv("MORAINE_ROLLBACK_SEEDS");
  return seeds ? std::atoi(seeds) : 6;
}

TEST(RollbackRandomE2e, ARollbackReadsAsAStockReplayUpToItsSnapshot) {
  int compared = 0;
  for (int seed = 1; seed <= Seeds(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::TempDir dir;
    test::DuckLakeSession session;
    for (const std::string lake : {"lake", "stock"}) {
      const std::string location =
          lake == "lake" ? "moraine:" + dir.path("lake.moraine") : dir.path("stock.ducklake");
      session.Run("ATTACH 'ducklake:" + location + "' AS " + lake + " (DATA_PATH '" +
                  dir.path(lake + "_files") + "/', DATA_INLINING_ROW_LIMIT 10)");
    }
    History history(static_cast<uint32_t>(seed));
    Model model;
    const int before = 10 + seed % 7, after = 8 + seed % 5;
    std::string trail;  // the statements, for the failure message
    for (int i = 0; i < before; ++i) {
      const std::string statement = history.Next(model);
      trail += statement + ";\n";
      session.Run(test::OnLake(statement, "lake"));
      session.Run(test::OnLake(statement, "stock"));
    }
    const int64_t target = session.Head("lake");
    Model at_target = model;
    for (int i = 0; i < after; ++i) {
      const std::string statement = history.Next(model);
      trail += "-- after the target: " + statement + ";\n";
      session.Run(test::OnLake(statement, "lake"));
    }
    SCOPED_TRACE(trail);
    session.Run("CALL moraine_rollback('lake', to_snapshot => " + std::to_string(target) + ")");
    EXPECT_EQ(test::UserCatalog(session, "lake"), test::UserCatalog(session, "stock"));
    // Both go on from there alike.
    model = at_target;
    std::string went_on;
    for (int i = 0; i < 4; ++i) {
      const std::string statement = history.Next(model);
      went_on += "-- after the rollback: " + statement + ";\n";
      session.Run(test::OnLake(statement, "lake"));
      session.Run(test::OnLake(statement, "stock"));
    }
    SCOPED_TRACE(went_on);
    EXPECT_EQ(test::UserCatalog(session, "lake"), test::UserCatalog(session, "stock"));
    EXPECT_EQ(session.Query("SELECT * FROM moraine_verify('lake')"), Rows{});
    // Expiry and cleanup of everything but the head keep what it reads.
    const Rows head = test::UserCatalog(session, "lake");
    session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
    session.Run("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)");
    EXPECT_EQ(test::UserCatalog(session, "lake"), head);
    ++compared;
  }
  std::cout << compared << " rollbacks compared with a stock replay\n";
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace moraine
