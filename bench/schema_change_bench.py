"""What a column change costs through DuckLake SQL, by table width and by the
lake's schema history: the stock DuckDB Python package of the pinned release
with moraine loaded as the self-contained extension, against DuckLake's stock
DuckDB-file catalog, in one run (issue #30).

usage: python schema_change_bench.py REPOSITORY

REPOSITORY is the local extension repository `make extension` lays out.
Per catalog, in a fresh lake each:

  width    on tables of 10, 1,000 and 2,010 INTEGER columns holding one row,
           the process CPU of one statement, median of SAMPLES:
             add     ALTER TABLE ADD COLUMN      (then dropped, untimed)
             rename  ALTER TABLE RENAME COLUMN   (renamed back and forth)
             type    ALTER COLUMN TYPE BIGINT    (of a column added untimed)
             drop    ALTER TABLE DROP COLUMN     (of a column added untimed)
           so the table keeps its width while it is measured.
  history  ATTACH plus a first query in a fresh process (median of three),
           and ADD COLUMN on a 10-column table (each a table of its own), before
           and after RENAMES renames of one column of another table (env MORAINE_BENCH_RENAMES,
           default 3000; issue #30 asks 30,000 too, which takes the DuckDB
           file most of an hour).

It prints the figures, each catalog's widest/narrowest and after/before
ratios, and moraine over the DuckDB file. Nothing here asserts.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import stock_duckdb

REPOSITORY = sys.argv[1]
SAMPLES = int(os.environ.get("MORAINE_BENCH_SAMPLES", "30"))
RENAMES = int(os.environ.get("MORAINE_BENCH_RENAMES", "3000"))
WIDTHS = (10, 1000, 2010)
OPS = ("add", "rename", "type", "drop")
EXTENSIONS = tempfile.mkdtemp(prefix="moraine-bench-extensions-")

CATALOGS = {
    "moraine": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake (DATA_PATH '{d}/files/')",
    "duckdb-file": lambda d: f"ATTACH 'ducklake:{d}/lake.ducklake' AS lake (DATA_PATH '{d}/files/')",
}


def cpu_ms(con, statement):
    cpu = time.process_time()
    con.execute(statement)
    return (time.process_time() - cpu) * 1e3


def create_table(con, name, width):
    columns = ", ".join(f"c{i} INTEGER" for i in range(width))
    con.execute(f"CREATE TABLE lake.{name}({columns})")
    con.execute(f"INSERT INTO lake.{name} VALUES ({', '.join(['1'] * width)})")


def column_changes(con, table):
    """Median CPU ms of each op on `table`, which keeps its width."""
    samples = {op: [] for op in OPS}
    for i in range(SAMPLES):
        samples["add"].append(cpu_ms(con, f"ALTER TABLE lake.{table} ADD COLUMN a{i} INTEGER"))
        con.execute(f"ALTER TABLE lake.{table} DROP COLUMN a{i}")
        old, new = ("c1", "r1") if i % 2 == 0 else ("r1", "c1")
        samples["rename"].append(
            cpu_ms(con, f"ALTER TABLE lake.{table} RENAME COLUMN {old} TO {new}"))
        con.execute(f"ALTER TABLE lake.{table} ADD COLUMN p{i} INTEGER")
        samples["type"].append(
            cpu_ms(con, f"ALTER TABLE lake.{table} ALTER COLUMN p{i} TYPE BIGINT"))
        con.execute(f"ALTER TABLE lake.{table} DROP COLUMN p{i}")
        con.execute(f"ALTER TABLE lake.{table} ADD COLUMN d{i} INTEGER")
        samples["drop"].append(cpu_ms(con, f"ALTER TABLE lake.{table} DROP COLUMN d{i}"))
    return {op: statistics.median(v) for op, v in samples.items()}


def added_column_ms(con, table):
    samples = []
    for i in range(SAMPLES):
        samples.append(cpu_ms(con, f"ALTER TABLE lake.{table} ADD COLUMN h{i} INTEGER"))
        con.execute(f"ALTER TABLE lake.{table} DROP COLUMN h{i}")
    return statistics.median(samples)


def attach_ms(attach):
    return statistics.median(
        stock_duckdb.attach_and_query(EXTENSIONS, attach, "SELECT count(*) FROM lake.n")[0]
        for _ in range(3)) * 1e3


def measure(attach_of):
    scratch = tempfile.mkdtemp(prefix="moraine-bench-")
    try:
        attach = attach_of(scratch)
        con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
        con.execute(attach)
        result = {}
        for width in WIDTHS:
            create_table(con, f"w{width}", width)
            result[width] = column_changes(con, f"w{width}")
        # n is only queried; a1 and a2 take the column changes before and
        # after, so that each is measured on a table of the same history.
        for table in ("n", "r", "a1", "a2"):
            create_table(con, table, 10)
        con.close()
        result["attach_pre"] = attach_ms(attach)
        con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
        con.execute(attach)
        result["add_pre"] = added_column_ms(con, "a1")
        for i in range(RENAMES):
            old, new = ("c0", "x0") if i % 2 == 0 else ("x0", "c0")
            con.execute(f"ALTER TABLE lake.r RENAME COLUMN {old} TO {new}")
        result["add_post"] = added_column_ms(con, "a2")
        con.close()
        result["attach_post"] = attach_ms(attach)
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    import duckdb

    print(f"one run, stock DuckDB {duckdb.__version__} (Python); process CPU ms per statement, "
          f"medians of {SAMPLES}; history: {RENAMES} renames of another table's column")
    results = {}
    for name, attach_of in CATALOGS.items():
        r = results[name] = measure(attach_of)
        for width in WIDTHS:
            print(f"{name:12} width {width:5}  " +
                  "  ".join(f"{op} {r[width][op]:7.2f}" for op in OPS), flush=True)
        print(f"{name:12} widest/narrowest  " +
              "  ".join(f"{op} x{r[WIDTHS[-1]][op] / r[WIDTHS[0]][op]:.2f}" for op in OPS))
        print(f"{name:12} history  attach+query {r['attach_pre']:6.1f} -> {r['attach_post']:6.1f} "
              f"(x{r['attach_post'] / r['attach_pre']:.2f})  add column "
              f"{r['add_pre']:6.2f} -> {r['add_post']:6.2f} (x{r['add_post'] / r['add_pre']:.2f})",
              flush=True)
    moraine, stock = results["moraine"], results["duckdb-file"]
    for width in WIDTHS:
        print(f"moraine / duckdb-file width {width:5}  " +
              "  ".join(f"{op} {moraine[width][op] / stock[width][op]:.2f}" for op in OPS))
    print(f"moraine / duckdb-file after history  attach+query "
          f"{moraine['attach_post'] / stock['attach_post']:.2f}  add column "
          f"{moraine['add_post'] / stock['add_post']:.2f}")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(EXTENSIONS, ignore_errors=True)
