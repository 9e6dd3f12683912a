#!/usr/bin/env bash
# Builds the pinned DuckDB engine with ThreadSanitizer, for `make test-tsan`
# (issue #33): the shared libduckdb.so of DuckDB v1.5.5 from the pinned pip
# sdist (deps/pins.tsv row duckdb-source, unpacked by scripts/setup.sh), with
# the extensions the stock engine the tests link carries built in (its Node
# client's: core_functions, icu, json, parquet), compiled with g++'s
# -fsanitize=thread. TSan sees a race only where both sides are instrumented:
# the prebuilt engine's scheduler and executor hand work between threads
# through atomics TSan cannot see, and report as races in every test that
# runs a query on several threads. scripts/build_ducklake.sh v1.5.5 tsan then
# builds DuckLake against this engine.
#
# The engine reports v1.5.5 and the pinned source id, so the stock DuckLake's
# and moraine's extension metadata load into it as into the stock engine.
# Optimized with line tables (-g1): TSan's reports name files and lines.
#
# The result stays on this machine between runs and clones (a build takes
# about an hour on two cores; an interrupted one resumes where it stopped):
#
#   ${MORAINE_CACHE:-$HOME/.cache/moraine}/duckdb-tsan/<key>/libduckdb.so
#
# linked as .cache/deps/duckdb-tsan. <key> hashes the sdist's checksum, this
# script and the compiler.
#
# usage: build_duckdb_tsan.sh   (JOBS, default 2)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.cache/deps"
jobs="${JOBS:-2}"
source "$root/scripts/machine_cache.sh"

log() { printf 'duckdb tsan: %s\n' "$*" >&2; }

IFS=$'\t' read -r _ _ _ _ sdist_sha <<<"$(awk -F'\t' '$1 == "duckdb-source"' "$root/deps/pins.tsv")"
[[ -n $sdist_sha ]] || { log "deps/pins.tsv has no duckdb-source"; exit 1; }
source_dir="$deps/duckdb-source/external/duckdb"
[[ -f $source_dir/CMakeLists.txt ]] || { log "no sources at $source_dir: run scripts/setup.sh"; exit 1; }
version="$(cat "$deps/duckdb-source/duckdb_packaging/duckdb_version.txt")"
# The pinned release's source id (cmake/DuckDB.cmake's DUCKDB_SOURCE_ID).
source_id="$(sed -n 's/^set(DUCKDB_SOURCE_ID "\([0-9a-f]*\)")$/\1/p' "$root/cmake/DuckDB.cmake")"
[[ $version == v1.5.5 && -n $source_id ]] ||
  { log "the sdist is DuckDB $version, not the pinned v1.5.5 (or cmake/DuckDB.cmake names no source id)"; exit 1; }

key="$({
  printf '%s\n' "$version" "$sdist_sha" "$source_id"
  cat "${BASH_SOURCE[0]}" "$root/scripts/machine_cache.sh"
  c++ --version | head -n1
  cmake --version | head -n1
} | sha256sum | cut -c1-16)"
machine_cache_open duckdb-tsan "$key" "$deps/duckdb-tsan"
machine_cache_built && exit 0
machine_cache_lock && exit 0
# Not a scratch folder removed at exit: an interrupted build resumes here.
build="$machine_cache_kind_dir/.build-$key"
mkdir -p "$build"
log "building DuckDB $version with ThreadSanitizer in $build (once per machine, about an hour)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
[[ -f $build/build.ninja ]] ||
  cmake -S "$source_dir" -B "$build" -G Ninja "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g1 -DCMAKE_C_FLAGS=-g1 \
    -DOVERRIDE_GIT_DESCRIBE="$version-0-g$source_id" \
    -DBUILD_EXTENSIONS="core_functions;icu;json;parquet" -DENABLE_JEMALLOC=OFF \
    -DBUILD_SHELL=FALSE -DBUILD_UNITTESTS=FALSE -DENABLE_THREAD_SANITIZER=TRUE \
    -DENABLE_SANITIZER=FALSE -DENABLE_UBSAN=FALSE >"$build/configure.log"
cmake --build "$build" -j "$jobs" --target duckdb >"$build/build.log" ||
  { log "the build failed; see $build/build.log"; exit 1; }

out="$machine_cache_kind_dir/.out-$key"
rm -rf "$out"
mkdir -p "$out"
cp "$build/src/libduckdb.so" "$out/"
machine_cache_store "$out"
rm -rf "$build"
log "built into $machine_cache_prefix"
