# moraine's entry points. Each target sets up what it needs (idempotently) first.
#   make run        set up, build, and tour a DuckLake lake on moraine in the stock DuckDB CLI
#   make test       set up, build, and run every test
#   make build      set up and build; the host executable lands at build/moraine
#   make extension  set up and build build/moraine.duckdb_extension and the local
#                   extension repository build/repository
#   make bench      set up, build, and run the benchmarks (they print numbers)
#   make bench-connections  only the 8-connection in-process commit benchmark
#   make bench-schema  only the column-change benchmark: by width and after renames,
#                   moraine against the DuckDB file (SCHEMA_RENAMES=30000 for the long one)
#   make bench-scale  only the lake-scale read benchmark: ATTACH plus a query on many
#                   inlined rows, files and tables, moraine against the DuckDB file
#                   (long; MORAINE_BENCH_BIG=1 for issue #32's sizes and
#                   MORAINE_BENCH_HISTORY=100000 for its history, each longer; not in make bench)
#   make bench-writers  only the writer-process benchmark: moraine on etcd against
#                   DuckLake on PostgreSQL (a few minutes)
#   make bench-writers-hosts  the same with 3 writers on 3 virtual hosts (network
#                   namespaces; root), beside the same on one loopback (a few minutes)
#   make bench-backup  only the backup benchmark: moraine_backup of 100,000 snapshots and
#                   10,000 files, full and incremental (about 20 minutes, mostly building)
#   make bench-rollback  only the rollback benchmark: moraine_rollback at 10,000 tables
#                   against a one-row commit (a few minutes, mostly building)
#   make fuzz       set up, build, and run each fuzz target for FUZZ_SECONDS (default 600)
#   make test-sanitize  build with ASan and UBSan in build-sanitize and run every tier
#                   that runs moraine in its own processes (MORAINE_DUCKLAKE_GIT adds
#                   DuckLake's suite in the host); a finding fails the test that met it
#   make test-tsan  build with TSan in build-tsan, against the pinned DuckDB and DuckLake
#                   built with TSan once per machine (about an hour; MORAINE_DUCKLAKE_GIT
#                   names DuckLake's git), and run the concurrency tests
BUILD_DIR ?= build
JOBS ?= 2
CTEST_ARGS ?=
FUZZ_SECONDS ?= 600
SANITIZE_BUILD_DIR ?= build-sanitize
TSAN_BUILD_DIR ?= build-tsan
# The tiers whose processes are all ours: the fuzz targets have their own
# sanitizer build and the ecosystem tier runs stock DuckDB runtimes.
SANITIZE_LABELS ?= unit|integration|property|e2e|crash|powercut|differential|fault|distributed|upstream
# The tests whose threads share a store, a cache, a watch or a DuckDB engine
# (issue #33): group sync, the catalog's racing commits, the read cache and
# commit queue on etcd, eight connections of one engine taking turns to
# commit, connections beside a read-only process, writer processes on etcd.
# The engine and DuckLake they run are the pinned ones built with TSan (see
# cmake/DuckDB.cmake).
TSAN_TESTS ?= GroupSync|CatalogConcurrencyTest|RowTransactionTest|EtcdReadCacheTest|EtcdCommitQueue|etcd_read_cache_test|etcd_commit_queue_test|InCatalogRetry|SqlConcurrency|NativeManager\.|DuckLakeOnMoraine|etcd_ducklake_writers_test|etcd_store_concurrency_test|etcd_e2e_ducklake_on_moraine_test
# Snapshots of history the DuckLake-path commit benchmark measures at (issue #11: 10,000).
BENCH_HISTORY ?= 10000
# Column renames elsewhere in the lake the column-change benchmark measures after (issue #30).
SCHEMA_RENAMES ?= 3000

STOCK_DUCKDB ?= $(CURDIR)/.cache/deps/venv/bin/duckdb

.PHONY: setup configure build extension run test test-sanitize test-tsan bench bench-stock bench-connections bench-schema bench-scale bench-writers bench-writers-hosts bench-backup bench-rollback fuzz format clean

setup:
	@scripts/setup.sh

configure: setup
	@test -f $(BUILD_DIR)/build.ninja || cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

extension: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target moraine_extension_repository

# The stock DuckDB CLI of the pinned version (installed by setup into the
# venv), with moraine and DuckLake installed from the local repository.
run: extension
	@cd $(BUILD_DIR) && rm -rf tour && $(STOCK_DUCKDB) -unsigned -init /dev/null -bail \
		-f $(CURDIR)/scripts/tour.sql

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE upstream $(CTEST_ARGS)

bench: build
	@$(BUILD_DIR)/bench/moraine_bench
	@$(BUILD_DIR)/bench/moraine_ducklake_bench
	@$(BUILD_DIR)/bench/moraine_writers_bench
	@$(MAKE) --no-print-directory bench-stock
	@$(MAKE) --no-print-directory bench-connections
	@$(MAKE) --no-print-directory bench-schema
	@$(MAKE) --no-print-directory bench-backup
	@$(MAKE) --no-print-directory bench-rollback

# DuckLake commits in the stock DuckDB Python package with the self-contained
# extension: moraine (native manager on and off) and the stock DuckDB-file
# catalog, once per supported release the repository holds (its own venv).
bench-stock: extension
	@for dir in $(BUILD_DIR)/repository/v*/linux_amd64; do \
		release=$$(basename $$(dirname $$dir)); \
		if [ ! -f $$dir/ducklake.duckdb_extension ]; then \
			echo "bench-stock: DuckDB $$release left out: no DuckLake for it on this machine"; \
			continue; \
		fi; \
		MORAINE_BENCH_HISTORY=$(BENCH_HISTORY) .cache/deps/venv-$$release/bin/python \
			bench/stock_commit_bench.py $(BUILD_DIR)/repository || exit 1; \
	done

# Eight connections of one process committing to eight tables, against one:
# moraine (in-catalog retries), moraine with the manager off, the DuckDB file.
bench-connections: extension
	@.cache/deps/venv/bin/python bench/connections_commit_bench.py $(BUILD_DIR)/repository

# ALTER TABLE ADD/RENAME/TYPE/DROP COLUMN through DuckLake SQL by table width,
# and ATTACH plus a column change after many renames of another table.
bench-schema: extension
	@MORAINE_BENCH_RENAMES=$(SCHEMA_RENAMES) .cache/deps/venv/bin/python bench/schema_change_bench.py \
		$(BUILD_DIR)/repository

# moraine_backup of a lake of 100,000 snapshots and 10,000 Parquet files, full
# and after ten commits, beside a copy of the stock DuckDB-file catalog of the
# same lake (issue #34; sizes from MORAINE_BENCH_BACKUP_*; about 20 minutes).
bench-backup: extension
	@.cache/deps/venv/bin/python bench/backup_bench.py $(BUILD_DIR)/repository

bench-rollback: extension
	@.cache/deps/venv/bin/python bench/rollback_bench.py $(BUILD_DIR)/repository

# ATTACH plus one query in a fresh single-threaded process on lakes of many
# inlined rows (before and after a delete and an update), many Parquet files
# and many tables (issue #32). Sizes from MORAINE_BENCH_* (see the script).
bench-scale: extension
	@.cache/deps/venv/bin/python bench/scale_bench.py $(BUILD_DIR)/repository

bench-writers: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target moraine_writers_bench
	@$(BUILD_DIR)/bench/moraine_writers_bench

bench-writers-hosts: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target moraine_writers_bench
	@$(BUILD_DIR)/bench/moraine_writers_bench --hosts 3 --writers 3

# Leaks are findings too; a finding aborts the process that met it, so the
# test fails with the report in its output.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/sanitizer/tsan.supp

test-sanitize: setup
	@test -f $(SANITIZE_BUILD_DIR)/build.ninja || cmake -S . -B $(SANITIZE_BUILD_DIR) -G Ninja \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMORAINE_SANITIZE=address,undefined
	@$(SANITIZER_ENV) cmake --build $(SANITIZE_BUILD_DIR) -j $(JOBS)
	@cd $(SANITIZE_BUILD_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) \
		-L '$(SANITIZE_LABELS)' --timeout 1800 $(CTEST_ARGS)

test-tsan: setup
	@scripts/build_ducklake.sh v1.5.5 tsan
	@test -e .cache/deps/ducklake-tsan/ducklake.duckdb_extension || { echo "make test-tsan:" \
		"DuckLake is built from source here: set MORAINE_DUCKLAKE_GIT (see scripts/build_ducklake.sh)"; exit 1; }
	@scripts/build_duckdb_tsan.sh
	@test -f $(TSAN_BUILD_DIR)/build.ninja || cmake -S . -B $(TSAN_BUILD_DIR) -G Ninja \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMORAINE_SANITIZE=thread
	@$(SANITIZER_ENV) cmake --build $(TSAN_BUILD_DIR) -j $(JOBS)
	@cd $(TSAN_BUILD_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS) \
		-R '$(TSAN_TESTS)' --timeout 1800 $(CTEST_ARGS)

fuzz: build
	@tests/fuzz/run.sh $(BUILD_DIR)/fuzz $(FUZZ_SECONDS)

format:
	@git ls-files "*.cpp" "*.h" "*.hpp" | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
