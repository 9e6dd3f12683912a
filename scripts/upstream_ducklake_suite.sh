#!/usr/bin/env bash
# Runs DuckLake's own sqllogictest suite (test/sql at the commit the pinned
# DuckLake was built from) with `moraine sqllogictest`, on the stock DuckDB-file
# catalog and on moraine. The suite is read from a local git clone of
# duckdb/ducklake and extracted into a scratch directory; it is never copied
# into this repository.
#
# usage: scripts/upstream_ducklake_suite.sh DUCKLAKE_GIT_DIR [compare|moraine|moraine-sql|stock] [FILE_GLOB]
#   compare (default): runs stock, then moraine with its native DuckLake metadata
#     manager and without it (MORAINE_NATIVE_MANAGER=off, DuckLake's SQL alone);
#     prints the three counts and every file that passes on stock but fails on
#     moraine either way; exits 1 if any such file is not one of NOT_MORAINES below.
#   moraine | moraine-sql | stock: runs one catalog; exits as the runner does (1 if
#     any file fails).
#   Exit status 77: that release's DuckLake is not built on this machine.
# (MORAINE=path/to/moraine overrides the host binary, default build/moraine)
#
# DUCKDB_RELEASE=vX.Y.Z runs it in another supported release: the suite of the
# DuckLake commit deps/pins.tsv names for it (ducklake-source-vX.Y.Z), in the
# host of that release (build/vX.Y.Z/moraine, target moraine_vX_Y_Z, built
# here when missing), whose DuckLake is the one scripts/build_ducklake.sh built.
#
# On moraine every file's DUCKLAKE_CONNECTION is the file's own, as a moraine
# store: 'moraine:' before the path the file names (--env-prefix), so a file
# that detaches and re-attaches finds its catalog again, and a lake attached
# without DATA_PATH keeps its data beside the store as on a DuckDB file.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
git_dir="${1:?usage: $0 DUCKLAKE_GIT_DIR [compare|moraine|moraine-sql|stock] [FILE_GLOB]}"
mode="${2:-compare}"
glob="${3:-test/sql/*}"
release="${DUCKDB_RELEASE:-v1.5.5}"
package="$(awk -F'\t' -v name="ducklake-source-$release" '$1 == name {print $3}' "$root/deps/pins.tsv")"
[[ -n $package ]] || { echo "deps/pins.tsv names no DuckLake for DuckDB $release" >&2; exit 2; }
commit="${package#*@}"
if [[ $release == v1.5.5 ]]; then
  moraine_bin="${MORAINE:-$root/build/moraine}"  # with the registry's binary of that commit
else
  [[ -e $root/.cache/deps/ducklake-$release/ducklake.duckdb_extension ]] || {
    echo "no DuckLake for DuckDB $release on this machine: scripts/build_ducklake.sh $release" >&2
    exit 77
  }
  moraine_bin="${MORAINE:-$root/build/$release/moraine}"
  [[ -x $moraine_bin ]] || cmake --build "$root/build" -j "${JOBS:-2}" --target "moraine_${release//./_}"
fi
echo "DuckLake ${commit:0:8}'s suite in DuckDB $release ($moraine_bin)"

# Files that pass on the stock catalog and cannot pass on moraine, each with
# the reason (checked against DuckLake at each release's pinned commit).
declare -A NOT_MORAINES=(
  [test/sql/add_files/add_file_partitioned.test]="DuckLake 1.5.5 records partition_key_index 2 for all three keys (year, month, day) of the file it adds, three ducklake_file_partition_value rows with one identity; a DuckDB table has no key and keeps them, moraine refuses the duplicate and the commit lands nothing"
  [test/sql/general/metadata_parameters.test]="META_TYPE 'DUCKDB' makes DuckLake attach the metadata as a DuckDB file, so the moraine: path is opened as a file name"
  [test/sql/remove_orphans/metadata_in_data_path.test]="counts the catalog with GLOB('\${DATA_PATH}/*.db'); a moraine store is a directory, and glob lists files"
  [test/sql/settings/max_retry_count.test]="expects at least one of 10 concurrent INSERTs with ducklake_max_retry_count 1 to fail; moraine gives a process's connections turns to commit (FlushChangesServerSide), so a commit that lost the head re-plans at once and all 10 land"
  [test/sql/migration/v01_partitioned.test]="migrates a DuckDB-file catalog of format 0.1 shipped with the test (data/); moraine stores begin at 1.0"
)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$git_dir" archive "$commit" test data | tar -x -C "$work"
cd "$work"
mapfile -t files < <(find test/sql -name '*.test' -path "$glob" | sort)

# Runs the files on one catalog; the runner's output goes to $work/<catalog>.log.
run() {
  local catalog="$1"
  local args=(--verbose --env "DATA_PATH=__TEST_DIR__")
  local switch=on
  if [[ $catalog == moraine* ]]; then
    args+=(--env-prefix "DUCKLAKE_CONNECTION=moraine:")
  fi
  [[ $catalog == moraine-sql ]] && switch=off
  MORAINE_NATIVE_MANAGER=$switch "$moraine_bin" sqllogictest "${args[@]}" "${files[@]}" \
    > "$work/$catalog.log" 2>&1 || true
}

# The files of one outcome (PASS, FAIL, SKIP) in a runner log, one per line.
outcome() { sed -n "s/^$1 \([^: ]*\).*/\1/p" "$2" | sort -u; }

if [[ $mode == moraine || $mode == moraine-sql || $mode == stock ]]; then
  run "$mode"
  grep -v '^PASS ' "$work/$mode.log"
  [[ -z $(outcome FAIL "$work/$mode.log") ]]
  exit
fi
[[ $mode == compare ]] || {
  echo "unknown mode '$mode' (compare, moraine, moraine-sql or stock)" >&2
  exit 2
}

SECONDS=0
run stock
run moraine
run moraine-sql
echo "stock:                 $(tail -n 1 "$work/stock.log")"
echo "moraine:               $(tail -n 1 "$work/moraine.log")"
echo "moraine, manager off:  $(tail -n 1 "$work/moraine-sql.log")"
echo "($SECONDS s for the three)"

unexpected=0
for catalog in moraine moraine-sql; do
  mapfile -t regressions < <(comm -12 <(outcome PASS "$work/stock.log") \
    <(outcome FAIL "$work/$catalog.log"))
  echo "pass on stock, fail on $catalog: ${#regressions[@]}"
  for file in "${regressions[@]}"; do
    if [[ -n ${NOT_MORAINES[$file]:-} ]]; then
      echo "  $file (not moraine's: ${NOT_MORAINES[$file]})"
    else
      echo "  $file (UNEXPECTED)"
      unexpected=$((unexpected + 1))
      sed -n "\|^FAIL $file:|,/^\(PASS\|FAIL\|SKIP\) /p" "$work/$catalog.log" | sed '$d'
    fi
  done
done
((unexpected == 0))
