#!/usr/bin/env bash
# Builds DuckDB's static library of a release no registry serves one for,
# from that release's own sources (its pip sdist, deps/pins.tsv row
# duckdb-source-RELEASE, unpacked by scripts/setup.sh): the engine and its
# third-party archives, laid out as the Go bindings' modules lay theirs out
# (libduckdb_static.a, libduckdb_<part>.a), so cmake/DuckDBStatic.cmake links
# it as it links those. DuckDB's release build: Release, its version and
# commit from the sdist's build_info.json, no extensions, no shell, and no
# jemalloc: the engine inside an extension must allocate as its host frees.
#
# The result stays on this machine between runs and clones:
#
#   ${MORAINE_CACHE:-$HOME/.cache/moraine}/duckdb-static/<key>/
#
# linked as .cache/deps/duckdb-static-RELEASE. <key> hashes the sdist's
# checksum, this script and the compiler.
#
# usage: build_duckdb_static.sh RELEASE   (e.g. v2.0.1; JOBS, default 2)
set -euo pipefail

release="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.cache/deps"
jobs="${JOBS:-2}"
source "$root/scripts/machine_cache.sh"

log() { printf 'duckdb static %s: %s\n' "$release" "$*" >&2; }

IFS=$'\t' read -r _ _ _ _ sdist_sha <<<"$(awk -F'\t' -v name="duckdb-source-$release" \
  '$1 == name' "$root/deps/pins.tsv")"
[[ -n $sdist_sha ]] || { log "deps/pins.tsv has no duckdb-source-$release"; exit 1; }
sdist="$deps/duckdb-source-$release"
[[ -f $sdist/external/duckdb/CMakeLists.txt ]] || { log "no sources at $sdist: run scripts/setup.sh"; exit 1; }
read -r version commit < <(python3 -c 'import json, sys
info = json.load(open(sys.argv[1]))
print(info["duckdb_version"], info["duckdb_commit"])' "$sdist/duckdb_packaging/build_info.json")
[[ $version == "$release" ]] || { log "the sdist is DuckDB $version, not $release"; exit 1; }

key="$({
  printf '%s\n' "$release" "$sdist_sha"
  cat "${BASH_SOURCE[0]}" "$root/scripts/machine_cache.sh"
  c++ --version | head -n1
  cmake --version | head -n1
} | sha256sum | cut -c1-16)"
machine_cache_open duckdb-static "$key" "$deps/duckdb-static-$release"
machine_cache_built && exit 0
machine_cache_lock && exit 0
machine_cache_scratch
log "building DuckDB ${commit:0:10} from its sources (once per machine)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# DuckDB 2.0 compiles for x86-64-v3 (AVX2) unless told its code goes into an
# extension, which DuckDB builds for x86-64-v2 so that every host that runs
# DuckDB can load it; moraine's extension carries this library.
cmake -S "$sdist/external/duckdb" -B "$work/build" -G Ninja "${launcher[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DOVERRIDE_GIT_DESCRIBE="$version" -DGIT_COMMIT_HASH="$commit" \
  -DBUILD_EXTENSIONS= -DENABLE_JEMALLOC=OFF -DBUILD_SHELL=FALSE -DBUILD_UNITTESTS=FALSE \
  -DENABLE_SANITIZER=FALSE -DENABLE_UBSAN=FALSE -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DDUCKDB_OPTIMIZATION_PROFILE=EXTENSION >"$work/configure.log"
cmake --build "$work/build" -j "$jobs" --target duckdb_static >"$work/build.log"

mkdir -p "$work/out"
find "$work/build" -name 'libduckdb_*.a' -exec cp {} "$work/out/" \;
[[ -f $work/out/libduckdb_static.a ]] || { log "the build made no libduckdb_static.a"; exit 1; }
machine_cache_store "$work/out"
log "built into $machine_cache_prefix: $(cd "$machine_cache_prefix" && ls -- *.a | tr '\n' ' ')"
