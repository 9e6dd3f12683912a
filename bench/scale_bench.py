"""Reads at lake scale: what ATTACH plus one query costs on a lake of many
inlined rows, many data files or many tables, through DuckLake SQL in the stock
DuckDB Python package of the pinned release with moraine loaded as the
self-contained extension, against DuckLake's stock DuckDB-file catalog, side by
side in one run (issue #32).

usage: python scale_bench.py REPOSITORY

REPOSITORY is the local extension repository `make extension` lays out.
Each catalog gets a fresh lake of each shape, grown in one connection:

  moraine      ATTACH 'ducklake:moraine:<dir>/lake.moraine' (DATA_PATH '<dir>/files/')
  duckdb-file  ATTACH 'ducklake:<dir>/lake.ducklake'        (DATA_PATH '<dir>/files/')

The parts (env MORAINE_BENCH_PARTS, comma-separated, default
"inlined,files,tables"):

  inlined  t(id BIGINT, p VARCHAR) with DATA_INLINING_ROW_LIMIT 10 on the
           ATTACH, filled with ROWS rows (env MORAINE_BENCH_INLINED_ROWS,
           default 200,000; 1,000,000 with MORAINE_BENCH_BIG=1) by INSERTs of
           10 rows each, each its own commit, so every row stays inlined in the
           catalog. Times Q1-Q4; then deletes 10% of the rows and updates
           another 10% (two statements, one connection, their times printed)
           and times Q1-Q4 again ("after delete+update"). Last, a one-row
           INSERT commit on the grown lake: process CPU ms, median of 20.
  files    f(id BIGINT, v VARCHAR) with DATA_INLINING_ROW_LIMIT 0, one
           Parquet file per one-row INSERT, FILES of them (env
           MORAINE_BENCH_FILES, default 10,000; 100,000 with
           MORAINE_BENCH_BIG=1). Times a point count and a full count/sum,
           then prints moraine_native_manager()'s file-list counters after
           a point count (the native manager served it and pruned).
  tables   lakes of T tables t0, t1, ... of one INTEGER column each, for each
           T of env MORAINE_BENCH_TABLES (comma-separated, default
           "1000,10000"; each T at least 8). The tables are created 100 per
           transaction (BEGIN ... COMMIT), not one per commit, to keep the
           build short: the catalog's size is what is measured here, not its
           history. Times a count(*) of t7 and a count of the lake's tables
           in duckdb_tables(), and prints each catalog's growth from the
           smallest T to the largest.

History (env MORAINE_BENCH_HISTORY=N, default 0: off): after each lake's
queries, N one-row INSERT commits into another table h of that lake (N more
snapshots of history; h's rows inlined, an ATTACH with DATA_INLINING_ROW_LIMIT
10), then the same queries again ("+N snapshots"), and each catalog's growth per
query. Issue #32 asks N = 100,000; the stock catalog's commits make that hours
for every part.

Every timed query is ATTACH plus the query in a fresh process with
`SET threads = 1` (stock_duckdb.attach_and_query; extension loading
excluded), wall ms, median of SAMPLES (env MORAINE_BENCH_SAMPLES, default 5),
the catalogs alternating sample by sample. It prints each lake's build time
as it goes (the default sizes take minutes per catalog; a dot per 10%), then a
table of part, lake, query, moraine ms, duckdb-file ms, their ratio, and each
catalog's median peak resident set of the query's process (MiB, interpreter and
extensions included).
Nothing here asserts: it prints numbers.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import stock_duckdb

REPOSITORY = sys.argv[1]
BIG = os.environ.get("MORAINE_BENCH_BIG") == "1"
SAMPLES = int(os.environ.get("MORAINE_BENCH_SAMPLES", "5"))
PARTS = [p.strip() for p in os.environ.get("MORAINE_BENCH_PARTS", "inlined,files,tables").split(",")
         if p.strip()]
INLINED_ROWS = int(os.environ.get("MORAINE_BENCH_INLINED_ROWS", "1000000" if BIG else "200000"))
FILES = int(os.environ.get("MORAINE_BENCH_FILES", "100000" if BIG else "10000"))
TABLES = sorted(int(t) for t in os.environ.get("MORAINE_BENCH_TABLES", "1000,10000").split(","))
INSERT_SAMPLES = 20
TABLES_PER_TRANSACTION = 100
HISTORY = int(os.environ.get("MORAINE_BENCH_HISTORY", "0"))
EXTENSIONS = tempfile.mkdtemp(prefix="moraine-bench-extensions-")

CATALOGS = {
    "moraine": lambda d, options="":
        f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake (DATA_PATH '{d}/files/'{options})",
    "duckdb-file": lambda d, options="":
        f"ATTACH 'ducklake:{d}/lake.ducklake' AS lake (DATA_PATH '{d}/files/'{options})",
}

INLINED_QUERIES = {
    "Q1 count,sum,max": "SELECT count(*), sum(id), max(p) FROM lake.t",
    "Q2 id = 777": "SELECT p FROM lake.t WHERE id = 777",
    "Q3 id in 1000..1999": "SELECT count(*) FROM lake.t WHERE id BETWEEN 1000 AND 1999",
    "Q4 count": "SELECT count(*) FROM lake.t",
}
FILES_QUERIES = {
    "count id = 42": "SELECT count(*) FROM lake.f WHERE id = 42",
    "count,sum": "SELECT count(*), sum(id) FROM lake.f",
}
TABLES_QUERIES = {
    "count t7": "SELECT count(*) FROM lake.t7",
    "count tables": "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'lake'",
}

# (part, lake, query, moraine ms, duckdb-file ms, moraine MiB, duckdb-file MiB), in the
# order measured.
ROWS = []


def grow(label, statements_of, n):
    """Runs statements_of(i) for i in range(n), printing a dot per 10%; wall s."""
    print(f"{label:46} ", end="", flush=True)
    wall = time.perf_counter()
    for i in range(n):
        for statement in statements_of(i):
            yield statement
        if (i + 1) * 10 // n > i * 10 // n:
            print(".", end="", flush=True)
    seconds = time.perf_counter() - wall
    print(f" {seconds:8.1f} s", flush=True)


def build(label, directory, attach, setup, statements_of, n):
    """A lake in `directory` (made here): `setup` then statements_of(i) for i in range(n), in one
    connection, each statement its own commit unless it opens a transaction."""
    os.makedirs(directory)
    extend(label, attach, setup, statements_of, n)


def extend(label, attach, setup, statements_of, n):
    """The lake `attach` names, grown as build() grows a new one."""
    con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
    con.execute(attach)
    for statement in setup:
        con.execute(statement)
    for statement in grow(label, statements_of, n):
        con.execute(statement)
    con.close()


def query_ms(attaches, queries, part, lake):
    """Per query, each catalog's median wall ms of ATTACH plus the query in a
    fresh single-threaded process, and its median peak resident set; appends
    the rows and prints them."""
    result = {}
    for label, query in queries.items():
        samples = {name: [] for name in attaches}
        rss = {name: [] for name in attaches}
        for _ in range(SAMPLES):
            for name, attach in attaches.items():
                _, wall, mib = stock_duckdb.attach_and_query_with_rss(
                    EXTENSIONS, attach, query, threads=1)
                samples[name].append(wall * 1e3)
                rss[name].append(mib)
        ms = {name: statistics.median(s) for name, s in samples.items()}
        mib = {name: statistics.median(s) for name, s in rss.items()}
        result[label] = ms
        ROWS.append((part, lake, label, ms["moraine"], ms["duckdb-file"], mib["moraine"],
                     mib["duckdb-file"]))
        print_row(ROWS[-1], flush=True)
    return result


def print_row(row, flush=False):
    part, lake, label, moraine, stock, moraine_mib, stock_mib = row
    print(f"{part:8} {lake:36} {label:22} {moraine:11.1f} {stock:15.1f} {moraine / stock:9.2f} "
          f"{moraine_mib:8.1f} / {stock_mib:.1f}", flush=flush)


def print_header():
    print(f"{'part':8} {'lake':36} {'query':22} {'moraine ms':>11} {'duckdb-file ms':>15} "
          f"{'mor/file':>9} {'peak RSS MiB mor / file':>24}")


def with_history(dirs, attaches, queries, part, lake, before):
    """With HISTORY set: grows each catalog's lake (in dirs) by HISTORY one-row
    commits to another table, its rows inlined whatever the part's lake
    inlines, times `queries` again on `attaches`, and prints each catalog's
    growth from `before` (query_ms's result on the same lake)."""
    if not HISTORY:
        return
    for name, attach_of in CATALOGS.items():
        extend(f"{part:8} {name} grow {HISTORY} snapshots of history",
               attach_of(dirs[name], ", DATA_INLINING_ROW_LIMIT 10"),
               ["CREATE TABLE IF NOT EXISTS lake.h(i BIGINT)"],
               lambda i: [f"INSERT INTO lake.h VALUES ({i})"], HISTORY)
    print_header()
    after = query_ms(attaches, queries, part, f"{lake}, +{HISTORY} snapshots")
    for name in attaches:
        print(f"{part:8} {name:12} growth with {HISTORY} snapshots of history  " +
              "  ".join(f"{label} x{after[label][name] / before[label][name]:.2f}"
                        for label in queries), flush=True)


def cpu_ms(con, statement):
    cpu = time.process_time()
    con.execute(statement)
    return (time.process_time() - cpu) * 1e3


def inlined(scratch):
    options = ", DATA_INLINING_ROW_LIMIT 10"
    dirs = {name: os.path.join(scratch, "inlined-" + name) for name in CATALOGS}
    attaches = {name: attach_of(dirs[name], options) for name, attach_of in CATALOGS.items()}
    commits = (INLINED_ROWS + 9) // 10

    def insert(i):
        k = i * 10
        yield f"INSERT INTO lake.t SELECT i, 'p' || i FROM range({k}, {min(k + 10, INLINED_ROWS)}) r(i)"

    for name, attach in attaches.items():
        build(f"inlined  {name} build {INLINED_ROWS} rows, {commits} commits", dirs[name], attach,
              ["CREATE TABLE lake.t(id BIGINT, p VARCHAR)"], insert, commits)
    lake = f"{INLINED_ROWS} rows inlined"
    print_header()
    query_ms(attaches, INLINED_QUERIES, "inlined", lake)
    for name, attach in attaches.items():
        con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
        con.execute(attach)
        figures = []
        for statement in ("DELETE FROM lake.t WHERE id % 10 = 3",
                          "UPDATE lake.t SET p = p || 'u' WHERE id % 10 = 7"):
            cpu, wall = time.process_time(), time.perf_counter()
            con.execute(statement)
            figures.append(((time.process_time() - cpu) * 1e3, (time.perf_counter() - wall) * 1e3))
        con.close()
        print(f"inlined  {name:12} delete 10% {figures[0][1]:9.1f} ms wall ({figures[0][0]:.1f} CPU)  "
              f"update 10% {figures[1][1]:9.1f} ms wall ({figures[1][0]:.1f} CPU)", flush=True)
    print_header()
    after_changes = query_ms(attaches, INLINED_QUERIES, "inlined", "after delete+update")
    with_history(dirs, attaches, INLINED_QUERIES, "inlined", "after delete+update", after_changes)
    for name, attach in attaches.items():
        con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
        con.execute(attach)
        insert_ms = statistics.median(
            cpu_ms(con, f"INSERT INTO lake.t VALUES ({INLINED_ROWS + j}, 'one')")
            for j in range(INSERT_SAMPLES))
        con.close()
        print(f"inlined  {name:12} one-row INSERT commit on the grown lake {insert_ms:7.2f} ms CPU "
              f"(median of {INSERT_SAMPLES})", flush=True)


def files(scratch):
    options = ", DATA_INLINING_ROW_LIMIT 0"
    dirs = {name: os.path.join(scratch, "files-" + name) for name in CATALOGS}
    attaches = {name: attach_of(dirs[name], options) for name, attach_of in CATALOGS.items()}
    for name, attach in attaches.items():
        build(f"files    {name} build {FILES} files", dirs[name], attach,
              ["CREATE TABLE lake.f(id BIGINT, v VARCHAR)"],
              lambda i: [f"INSERT INTO lake.f VALUES ({i}, 'v' || {i})"], FILES)
    print_header()
    before = query_ms(attaches, FILES_QUERIES, "files", f"{FILES} files")
    # The native manager served the file lists and pruned by the column stats.
    con = stock_duckdb.connect(EXTENSIONS, REPOSITORY)
    con.execute(attaches["moraine"])
    con.execute(FILES_QUERIES["count id = 42"]).fetchall()
    lists, pruned, pages_skipped = con.execute(
        "SELECT native_file_lists, files_pruned, file_summary_pages_skipped "
        "FROM moraine_native_manager()").fetchone()
    con.close()
    print(f"files    moraine_native_manager() after the point count: native_file_lists {lists}, "
          f"files_pruned {pruned}, file_summary_pages_skipped {pages_skipped}", flush=True)
    with_history(dirs, attaches, FILES_QUERIES, "files", f"{FILES} files", before)


def tables(scratch):
    per_tables = {}
    for count in TABLES:
        dirs = {name: os.path.join(scratch, f"tables-{count}-" + name) for name in CATALOGS}
        attaches = {name: attach_of(dirs[name]) for name, attach_of in CATALOGS.items()}
        batches = (count + TABLES_PER_TRANSACTION - 1) // TABLES_PER_TRANSACTION

        def batch(b, count=count):
            yield "BEGIN"
            for i in range(b * TABLES_PER_TRANSACTION, min((b + 1) * TABLES_PER_TRANSACTION, count)):
                yield f"CREATE TABLE lake.t{i}(id INTEGER)"
            yield "COMMIT"

        for name, attach in attaches.items():
            build(f"tables   {name} build {count} tables, {batches} commits", dirs[name], attach, [],
                  batch, batches)
        print_header()
        per_tables[count] = query_ms(attaches, TABLES_QUERIES, "tables", f"{count} tables")
        with_history(dirs, attaches, TABLES_QUERIES, "tables", f"{count} tables", per_tables[count])
        for d in dirs.values():
            shutil.rmtree(d, ignore_errors=True)
    if len(TABLES) > 1:
        small, large = per_tables[TABLES[0]], per_tables[TABLES[-1]]
        for name in CATALOGS:
            print(f"tables   {name:12} growth {TABLES[0]} -> {TABLES[-1]} tables  " +
                  "  ".join(f"{label} x{large[label][name] / small[label][name]:.2f}"
                            for label in TABLES_QUERIES))


PART_FUNCTIONS = {"inlined": inlined, "files": files, "tables": tables}


def main():
    import duckdb

    unknown = [p for p in PARTS if p not in PART_FUNCTIONS]
    if unknown:
        sys.exit(f"scale_bench: unknown part(s) {', '.join(unknown)}; "
                 f"known: {', '.join(PART_FUNCTIONS)}")
    print(f"one run, stock DuckDB {duckdb.__version__} (Python); ATTACH plus one query in a fresh "
          f"process with threads = 1, wall ms, medians of {SAMPLES}; parts {','.join(PARTS)}")
    for label, query in {**INLINED_QUERIES, **FILES_QUERIES, **TABLES_QUERIES}.items():
        print(f"  {label:22} {query}")
    scratch = tempfile.mkdtemp(prefix="moraine-bench-scale-")
    try:
        for part in PARTS:
            part_scratch = os.path.join(scratch, part)
            os.makedirs(part_scratch)
            PART_FUNCTIONS[part](part_scratch)
            shutil.rmtree(part_scratch, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print()
    print_header()
    for row in ROWS:
        print_row(row)


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(EXTENSIONS, ignore_errors=True)
