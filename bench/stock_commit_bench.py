"""DuckLake commit cost where users run it: the stock DuckDB Python package
of the pinned release, with moraine loaded as the self-contained extension.

usage: python stock_commit_bench.py REPOSITORY

REPOSITORY is the local extension repository `make extension` lays out
(moraine and the pinned DuckLake). One run measures every catalog side by
side on the same workload, in this order, each in a fresh process state:

  moraine        ATTACH 'ducklake:moraine:<dir>'            (native manager on)
  moraine-sql    the same with META_NATIVE_MANAGER false     (DuckLake's SQL only)
  duckdb-file    ATTACH 'ducklake:<dir>/lake.ducklake'        (DuckLake's stock catalog)
  sqlite         ATTACH 'ducklake:sqlite:<dir>/lake.sqlite'   (DuckDB's sqlite extension)
  postgres       ATTACH 'ducklake:postgres:<dsn>'             (a PostgreSQL server started
                 here on a loopback port; its server processes' CPU is added to the
                 process CPU, so the figure is the whole commit's)

The Python package is the one running this script, so `make bench-stock`
runs it once per supported release (each release's venv), and REPOSITORY
gives each release its own moraine and DuckLake. SQLite and PostgreSQL are
measured in the release whose scanner extensions are pinned (1.5.5: no
registry serves them for a later one). After moraine's runs it prints
moraine_native_manager(): the native manager's state in this release and
how many reads it answered.

Per catalog it prints medians over batches of commits: process CPU and wall
per one-row INSERT commit, per ALTER TABLE ADD COLUMN and per CREATE TABLE;
the INSERT again once the lake has HISTORY snapshots (env
MORAINE_BENCH_HISTORY, default 2000; grown by commits to another table) and
the ratio to the empty lake (not for SQLite and PostgreSQL); ATTACH
plus a first count(*) on the empty lake, and on the grown catalog just before
and after its history grows (the ratio is history's share); and the statements DuckLake sent to its
metadata catalog for one INSERT commit (DuckDB's query log). Ratios against
duckdb-file close the table. Nothing here asserts: it prints numbers.
"""

import os
import shutil
import statistics
import sys
import tempfile
import time

import duckdb

import stock_duckdb
from postgres_server import PostgresServer

REPOSITORY = sys.argv[1]
# The pinned sqlite and postgres extensions, which scripts/setup.sh lays out,
# and the one release they are built for.
DEPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".cache", "deps")
SCANNERS_RELEASE = "1.5.5"
SCANNER_CATALOGS = ("sqlite", "postgres")
HISTORY = int(os.environ.get("MORAINE_BENCH_HISTORY", "2000"))
# The catalogs to run, comma-separated (default: all five); a long history
# run may leave out the ones whose growth takes hours. duckdb-file is always
# run, since the ratios are against it.
CATALOG_CHOICE = os.environ.get("MORAINE_BENCH_CATALOGS")
BATCH = 50
BATCHES = 4


# One extension directory for the whole run (stock_duckdb.py says why).
EXTENSIONS = tempfile.mkdtemp(prefix="moraine-bench-extensions-")


def connect(scratch):
    return stock_duckdb.connect(EXTENSIONS, REPOSITORY)


def scanners_pinned():
    return duckdb.__version__ == SCANNERS_RELEASE


def install_metadata_extensions():
    if not scanners_pinned():
        return
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"SET extension_directory = '{EXTENSIONS}'")
    for name in ("sqlite_scanner", "postgres_scanner"):
        con.execute(f"INSTALL '{os.path.realpath(os.path.join(DEPS, name + '.duckdb_extension'))}'")
    con.close()


# The catalogs measured again at HISTORY snapshots. SQLite and PostgreSQL are
# measured on the empty lake only: growing a SQLite catalog to 10,000
# snapshots after the 200 CREATE TABLEs takes most of an hour here.
HISTORY_CATALOGS = ("moraine", "moraine-sql", "duckdb-file")

# The PostgreSQL server of the run, and the CPU its processes spend, which a
# client's process time does not see.
SERVER = None
SERVER_CPU = None


def server_cpu():
    return SERVER_CPU() if SERVER_CPU else 0.0


CATALOGS = {
    "moraine": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake (DATA_PATH '{d}/files/')",
    "moraine-sql": lambda d: f"ATTACH 'ducklake:moraine:{d}/lake.moraine' AS lake "
    f"(DATA_PATH '{d}/files/', META_NATIVE_MANAGER false)",
    "duckdb-file": lambda d: f"ATTACH 'ducklake:{d}/lake.ducklake' AS lake (DATA_PATH '{d}/files/')",
    "sqlite": lambda d: f"ATTACH 'ducklake:sqlite:{d}/lake.sqlite' AS lake (DATA_PATH '{d}/files/')",
    "postgres": lambda d: f"ATTACH 'ducklake:postgres:{SERVER.create_database()}' AS lake "
    f"(DATA_PATH '{d}/files/')",
}


def timed(fn):
    cpu, wall, server = time.process_time(), time.perf_counter(), server_cpu()
    fn()
    return (time.process_time() - cpu + server_cpu() - server, time.perf_counter() - wall)


def per_commit(con, statements):
    """Median CPU and wall per statement over BATCHES batches of BATCH."""
    cpus, walls = [], []
    it = iter(statements)
    for _ in range(BATCHES):
        batch = [next(it) for _ in range(BATCH)]
        cpu, wall = timed(lambda: [con.execute(s) for s in batch])
        cpus.append(cpu / BATCH)
        walls.append(wall / BATCH)
    return statistics.median(cpus) * 1e3, statistics.median(walls) * 1e3


def inserts(start):
    return (f"INSERT INTO lake.h VALUES ({i}, 'row {i}')" for i in range(start, 10**9))


def statements_per_commit(con):
    con.execute("CALL truncate_duckdb_logs()")
    con.execute("CALL enable_logging('QueryLog')")
    con.execute("INSERT INTO lake.h VALUES (-1, 'logged')")
    con.execute("CALL disable_logging()")
    rows = con.execute(
        "SELECT trim(message) FROM duckdb_logs WHERE type = 'QueryLog'"
    ).fetchall()
    return sum(
        1
        for (m,) in rows
        if not m.startswith("INSERT INTO lake.h") and not m.startswith("CALL disable_logging")
    )


def attach_and_count(attach):
    """ATTACH plus a first count(*) in a fresh process, as a user's session
    starts (extension loading excluded); median of three."""
    samples = []
    for _ in range(3):
        server = server_cpu()
        cpu, wall = stock_duckdb.attach_and_query(
            EXTENSIONS, attach, "SELECT count(*) FROM lake.h",
            ("moraine", "ducklake") + (("sqlite_scanner", "postgres_scanner")
                                       if scanners_pinned() else ()))
        samples.append(((cpu + server_cpu() - server) * 1e3, wall * 1e3))
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


NATIVE_COUNTERS = ("native_snapshot_reads", "native_catalog_reads")


def native_counters(con):
    """moraine_native_manager()'s read counters: they count for the whole
    process, so each catalog's share is the difference across its run."""
    return con.execute(
        f"SELECT {', '.join(NATIVE_COUNTERS)} FROM moraine_native_manager()").fetchone()


def native_manager(con, before):
    """moraine_native_manager() of this process: the state, the DuckLake build
    it serves (or why not), and the reads it answered natively since `before`."""
    state, reason, build, kept, retry, retry_reason, *counters = con.execute(
        "SELECT state, reason, ducklake_build, kept_methods, in_catalog_retry, "
        f"in_catalog_retry_reason, {', '.join(NATIVE_COUNTERS)} "
        "FROM moraine_native_manager()").fetchone()
    snapshots, catalogs = (now - then for now, then in zip(counters, before))
    text = f"{state}{f' ({reason})' if reason else ''}, DuckLake {build}"
    if kept:
        text += f", DuckLake's own answers of {kept}"
    text += f", {snapshots} snapshot and {catalogs} catalog reads answered natively"
    return text + (", commits retried in the catalog" if retry
                   else f", commits retried by DuckLake ({retry_reason})")


def measure(name, attach_of):
    global SERVER_CPU
    scratch = tempfile.mkdtemp(prefix="moraine-bench-")
    SERVER_CPU = SERVER.server_cpu_seconds if name == "postgres" else None
    try:
        attach = attach_of(scratch)
        con = connect(scratch)
        counters_before = native_counters(con)
        con.execute(attach)
        con.execute("CREATE TABLE lake.t(a INTEGER, b VARCHAR)")
        con.execute("CREATE TABLE lake.h(a INTEGER, b VARCHAR)")
        result = {}
        con.close()
        result["attach0"] = attach_and_count(attach)
        con = connect(scratch)
        con.execute(attach)
        result["insert"] = per_commit(con, inserts(0))
        result["stmts"] = statements_per_commit(con)
        result["alter"] = per_commit(
            con, (f"ALTER TABLE lake.t ADD COLUMN c{i} INTEGER" for i in range(10**9))
        )
        result["create"] = per_commit(
            con, (f"CREATE TABLE lake.t{i}(a INTEGER)" for i in range(10**9))
        )
        if name not in HISTORY_CATALOGS:
            con.close()
            return result
        # Grow the history to HISTORY snapshots with one-row commits to
        # another table, so that what the measured table holds stays the same
        # and only the lake's history grows. The attach is measured on the same
        # catalog (the 200 tables and columns the ALTERs and CREATEs made)
        # before and after, so its growth is history's alone.
        con.execute("CREATE TABLE lake.g(a INTEGER)")
        con.close()
        result["attach_pre"] = attach_and_count(attach)
        con = connect(scratch)
        con.execute(attach)
        head = con.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
        for i in range(head, HISTORY):
            con.execute(f"INSERT INTO lake.g VALUES ({i})")
        result["insert_h"] = per_commit(con, inserts(10**6))
        if name.startswith("moraine"):
            result["manager"] = native_manager(con, counters_before)
        con.close()
        result["attach_h"] = attach_and_count(attach)
        return result
    finally:
        SERVER_CPU = None
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    global SERVER
    install_metadata_extensions()
    SERVER = PostgresServer() if scanners_pinned() else None
    try:
        run()
    finally:
        if SERVER:
            SERVER.close()


def run():
    print(f"one run, stock DuckDB {duckdb.__version__} (Python), history {HISTORY} snapshots; "
          f"medians of {BATCHES} batches of {BATCH} commits; ms per commit (process CPU / wall)")
    results = {}
    wanted = (CATALOG_CHOICE or ",".join(CATALOGS)).split(",")
    unknown = set(wanted) - set(CATALOGS)
    if unknown:
        sys.exit(f"unknown catalogs in MORAINE_BENCH_CATALOGS: {', '.join(sorted(unknown))}")
    if "duckdb-file" not in wanted:
        wanted.append("duckdb-file")
    if not scanners_pinned():
        left = [name for name in wanted if name in SCANNER_CATALOGS]
        wanted = [name for name in wanted if name not in SCANNER_CATALOGS]
        if left:
            print(f"not measured in {duckdb.__version__}: {', '.join(left)} (their scanner "
                  f"extensions are pinned for {SCANNERS_RELEASE} only)")
    for name, attach_of in CATALOGS.items():
        if name not in wanted:
            continue
        results[name] = measure(name, attach_of)
        r = results[name]
        history = (
            f"insert@{HISTORY} {r['insert_h'][0]:6.2f}/{r['insert_h'][1]:6.2f} "
            f"(x{r['insert_h'][0] / r['insert'][0]:.2f} cpu)  "
            if "insert_h" in r else ""
        )
        attach_h = (f"before history {r['attach_pre'][0]:6.1f}/{r['attach_pre'][1]:6.1f} "
                    f"@{HISTORY} {r['attach_h'][0]:6.1f}/{r['attach_h'][1]:6.1f} "
                    f"(x{r['attach_h'][0] / r['attach_pre'][0]:.2f} cpu)  "
                    if "attach_h" in r else "")
        print(
            f"{name:12} insert {r['insert'][0]:6.2f}/{r['insert'][1]:6.2f}  "
            f"alter {r['alter'][0]:6.2f}/{r['alter'][1]:6.2f}  "
            f"create {r['create'][0]:6.2f}/{r['create'][1]:6.2f}  "
            f"{history}attach+count@0 {r['attach0'][0]:6.1f}/{r['attach0'][1]:6.1f}  "
            f"{attach_h}stmts/insert {r['stmts']}",
            flush=True,
        )
        if "manager" in r:
            print(f"{'':12} moraine_native_manager(): {r['manager']}", flush=True)
    stock = results["duckdb-file"]
    for name in ("moraine", "moraine-sql", "sqlite", "postgres"):
        if name not in results:
            continue
        r = results[name]
        ratios = "  ".join(
            f"{k} {r[k][0] / stock[k][0]:.2f}/{r[k][1] / stock[k][1]:.2f}"
            for k in ("insert", "alter", "create", "insert_h", "attach_h") if k in r
        )
        print(f"{name} / duckdb-file (cpu/wall): {ratios}")
    for other in ("sqlite", "postgres"):
        if other not in results or "moraine" not in results:
            continue
        print(f"moraine / {other} (cpu/wall): insert "
              f"{results['moraine']['insert'][0] / results[other]['insert'][0]:.2f}/"
              f"{results['moraine']['insert'][1] / results[other]['insert'][1]:.2f}")


if __name__ == "__main__":
    main()
