#!/usr/bin/env bash
# Runs DuckLake's own sqllogictest suite (test/sql at the commit the pinned
# DuckLake was built from) against a moraine catalog or the stock DuckDB-file
# catalog. The suite is read from a local git clone of duckdb/ducklake and
# extracted into a scratch directory; it is never copied into this repository.
#
# usage: scripts/upstream_ducklake_suite.sh DUCKLAKE_GIT_DIR [moraine|stock] [FILE_GLOB]
# (MORAINE=path/to/moraine overrides the host binary, default build/moraine)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
git_dir="${1:?usage: $0 DUCKLAKE_GIT_DIR [moraine|stock] [FILE_GLOB]}"
catalog="${2:-moraine}"
glob="${3:-test/sql/*}"
commit=d8a1881e22516ea3d186d73e83c65fe5bd1a1dc4

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$git_dir" archive "$commit" test data | tar -x -C "$work"
cd "$work"
mapfile -t files < <(find test/sql -name '*.test' -path "$glob" | sort)
args=(--env "DATA_PATH=__TEST_DIR__")
if [[ $catalog == moraine ]]; then
  args+=(--env "DUCKLAKE_CONNECTION=moraine:__TEST_DIR__/{UUID}.moraine")
fi
"${MORAINE:-$root/build/moraine}" sqllogictest "${args[@]}" "${files[@]}"
