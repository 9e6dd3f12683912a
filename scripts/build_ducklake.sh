#!/usr/bin/env bash
# Builds stock DuckLake, unmodified, as a loadable extension for a DuckDB
# release no registry serves a DuckLake binary of (deps/pins.tsv rows
# ducklake-source-RELEASE and duckdb-*-RELEASE), the way DuckDB builds its own
# Linux extensions: DuckLake's code with its symbols exported (moraine's
# native manager binds to them, as to the stock binary's), DuckDB's static
# library of that release linked in with its symbols kept local.
#
# The source is the pinned commit, read with `git archive` from the DuckLake
# git directory MORAINE_DUCKLAKE_GIT names (a clone or a fetched mirror of
# duckdb/ducklake); its tree must be the pinned tree. CRoaring, DuckLake's one
# library beyond DuckDB, comes from the pinned croaring-sys crate.
#
# The result stays on this machine between runs and clones:
#
#   ${MORAINE_CACHE:-$HOME/.cache/moraine}/ducklake/<key>/ducklake.duckdb_extension
#
# linked as the folder .cache/deps/ducklake-RELEASE (DuckDB derives the entry
# point's name from the file's, so the file keeps its name). <key> hashes the
# pins, this script and the compiler. Without a cached build and without
# MORAINE_DUCKLAKE_GIT, it says so and leaves no link: the build and the
# tests then leave that release's DuckLake out, saying why.
#
# usage: build_ducklake.sh RELEASE   (scripts/setup.sh calls it, e.g. with v1.5.6)
#
# build_ducklake.sh v1.5.5 tsan builds the variant `make test-tsan` loads: the
# same sources compiled with -fsanitize=thread, DuckDB not linked in (its
# symbols bind at LOAD to the ThreadSanitizer engine of
# scripts/build_duckdb_tsan.sh, which the instrumented host links), linked as
# .cache/deps/ducklake-tsan.
set -euo pipefail

release="$1"
variant="${2:-}"
[[ -z $variant || $variant == tsan ]] || { echo "usage: $0 RELEASE [tsan]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.cache/deps"
jobs="${JOBS:-2}"
source "$root/scripts/machine_cache.sh"

log() { printf 'ducklake %s: %s\n' "$release" "$*" >&2; }
pin() { awk -F'\t' -v name="$1" '$1 == name' "$root/deps/pins.tsv"; }

IFS=$'\t' read -r _ _ source_package _ tree <<<"$(pin "ducklake-source-$release")"
if [[ $variant == tsan ]]; then
  static_sha=none
else
  IFS=$'\t' read -r _ _ _ static_file static_sha <<<"$(pin "duckdb-static-$release")"
fi
IFS=$'\t' read -r _ _ roaring_package roaring_file roaring_sha <<<"$(pin croaring-source)"
[[ -n $source_package && -n $static_sha && -n $roaring_sha ]] ||
  { log "deps/pins.tsv lacks ducklake-source-$release, duckdb-static-$release or croaring-source"; exit 1; }
commit="${source_package#*@}"
duckdb_source="$deps/duckdb-$release"
duckdb_static="$deps/duckdb-static-$release"

key="$({
  printf '%s\n' "$release" "$variant" "$commit" "$tree" "$static_sha" "$roaring_sha"
  cat "${BASH_SOURCE[0]}" "$root/scripts/machine_cache.sh" "$root/scripts/append_extension_metadata.sh"
  c++ --version | head -n1
} | sha256sum | cut -c1-16)"
link="$deps/ducklake-$release"
[[ $variant == tsan ]] && link="$deps/ducklake-tsan"
machine_cache_open ducklake "$key" "$link"
machine_cache_built && exit 0
rm -f "$link"
if [[ -z ${MORAINE_DUCKLAKE_GIT:-} ]]; then
  log "not built: DuckLake ${commit:0:8} is in no registry; set MORAINE_DUCKLAKE_GIT to a git" \
    "directory of duckdb/ducklake holding it, and run setup again"
  exit 0
fi
got_tree="$(git -C "$MORAINE_DUCKLAKE_GIT" rev-parse "$commit^{tree}" 2>/dev/null)" ||
  { log "$MORAINE_DUCKLAKE_GIT has no commit $commit"; exit 1; }
[[ $got_tree == "$tree" ]] || { log "commit $commit has tree $got_tree, not the pinned $tree"; exit 1; }

machine_cache_lock && exit 0
machine_cache_scratch
mkdir -p "$work/src" "$work/obj" "$work/roaring/roaring" "$work/out"

log "building DuckLake ${commit:0:8} against DuckDB $release"
git -C "$MORAINE_DUCKLAKE_GIT" archive "$commit" src | tar x -C "$work"

# CRoaring's amalgamation, fetched with cargo (the registry's own client) in a
# scratch cargo home and checked against its pin.
fetch_roaring() {
  local scratch="$work/cargo" crate="${roaring_package%%@*}" version="${roaring_package#*@}"
  mkdir -p "$scratch/src"
  : >"$scratch/src/lib.rs"
  printf '[package]\nname = "moraine-ducklake-deps"\nversion = "0.0.0"\nedition = "2021"\n' \
    >"$scratch/Cargo.toml"
  printf '[dependencies]\n%s = { version = "=%s", default-features = false }\n' "$crate" \
    "${version%%+*}" >>"$scratch/Cargo.toml"
  CARGO_HOME="$scratch/home" cargo fetch --quiet --manifest-path "$scratch/Cargo.toml"
  local got
  got="$(find "$scratch/home/registry/cache" -name "$roaring_file" | head -n1)"
  [[ -n $got && $(sha256sum "$got" | cut -d' ' -f1) == "$roaring_sha" ]] ||
    { log "cargo did not bring $roaring_file with its pinned checksum"; exit 1; }
  tar xzf "$got" -C "$work/cargo" --strip-components=2 --wildcards '*/CRoaring/roaring.*'
  cp "$work/cargo/roaring.h" "$work/cargo/roaring.hh" "$work/roaring/roaring/"
  cp "$work/cargo/roaring.c" "$work/roaring/"
}
fetch_roaring

# DuckDB's Release flags for extensions; DUCKDB_BUILD_LOADABLE_EXTENSION makes
# the entry point the file's export. C++20, not DuckDB's C++11: DuckLake
# returns a unique_ptr of a derived class where a base's is declared, which
# GCC 12 accepts only under C++20's implicit move (the library ABI is the same).
launcher=()
command -v ccache >/dev/null && launcher=(ccache)
# Compiled from inside the scratch folder, whose paths ccache then sees as
# relative: a rebuild in another scratch folder hits the cache.
export CCACHE_BASEDIR="$work"
cd "$work"
flags=(-O3 -DNDEBUG -fPIC -ffunction-sections -fdata-sections)
[[ $variant == tsan ]] && flags=(-O2 -g1 -DNDEBUG -fPIC -fsanitize=thread)
cxx_flags=("${flags[@]}" -std=c++20 -DDUCKDB_BUILD_LOADABLE_EXTENSION
  "-DEXT_VERSION_DUCKLAKE=\"${commit:0:8}\"" -I"$work/src/include" -isystem "$duckdb_source/src/include"
  -isystem "$duckdb_source/third_party/fmt/include" -isystem "$duckdb_source/third_party/yyjson/include"
  -isystem "$work/roaring")
compile() {
  "${launcher[@]}" c++ "${cxx_flags[@]}" -c "$1" -o "$work/obj/$(tr / _ <<<"${1#"$work"/}").o"
}
mapfile -t sources < <(find "$work/src" -name '*.cpp' | sort)
sources+=("$duckdb_source/extension/loader/dummy_static_extension_loader.cpp")
running=0
for source in "${sources[@]}"; do
  compile "$source" &
  if ((++running >= jobs)); then
    wait -n || { log "compiling DuckLake failed"; exit 1; }
    running=$((running - 1))
  fi
done
for ((; running > 0; running--)); do wait -n || { log "compiling DuckLake failed"; exit 1; }; done
"${launcher[@]}" cc "${flags[@]}" -I"$work/roaring/roaring" -c "$work/roaring/roaring.c" -o "$work/obj/roaring.o"

if [[ $variant == tsan ]]; then
  # DuckDB's symbols stay undefined: the host's engine provides them.
  c++ -shared -fsanitize=thread -o "$work/out/ducklake.duckdb_extension" "$work"/obj/*.o \
    -lpthread -ldl
else
  archives=("$duckdb_static/libduckdb_static.a")
  for part in fastpforlib fmt fsst hyperloglog mbedtls miniz pg_query re2 skiplistlib utf8proc \
    yyjson zstd; do
    archives+=("$duckdb_static/libduckdb_$part.a")
  done
  # Under C++20 a static constexpr member of DuckDB's headers (LogicalType::
  # BIGINT, TableCatalogEntry::Name, ...) is an inline variable, which each
  # DuckLake object defines; DuckDB's C++11 library defines the same constant out
  # of line. They are one value from one header, so the linker keeps the first.
  c++ -shared -o "$work/out/ducklake.duckdb_extension" "$work"/obj/*.o \
    -Wl,--start-group "${archives[@]}" -Wl,--end-group -Wl,-z,defs -Wl,--gc-sections \
    -Wl,--exclude-libs,ALL -Wl,--allow-multiple-definition -lpthread -ldl
fi
"$root/scripts/append_extension_metadata.sh" "$work/out/ducklake.duckdb_extension" "$release" \
  linux_amd64 "${commit:0:8}"

machine_cache_store "$work/out"
log "built into $machine_cache_prefix"
