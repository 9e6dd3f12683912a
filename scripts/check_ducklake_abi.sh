#!/usr/bin/env bash
# Checks that every ABI file in src/ducklake_adapter/abi/ is what
# scripts/generate_ducklake_abi.sh makes of its DuckLake commit and DuckDB
# release (both named in the file's first lines): regenerates each into a
# scratch folder and compares byte for byte. Exit 1 names the files that
# differ; exit 77 when no DuckLake git directory is given.
#
# usage: check_ducklake_abi.sh [DUCKLAKE_GIT]   (default: $MORAINE_DUCKLAKE_GIT)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ducklake_git="${1:-${MORAINE_DUCKLAKE_GIT:-}}"
[[ -n $ducklake_git ]] || { echo "no DuckLake git directory: set MORAINE_DUCKLAKE_GIT" >&2; exit 77; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
differ=0
for file in "$root"/src/ducklake_adapter/abi/*.h; do
  read -r commit release < <(sed -n '2s|^// \([0-9a-f]*\) compiled against DuckDB \(v[0-9.]*\)\.$|\1 \2|p' "$file")
  [[ -n ${commit:-} ]] || { echo "$file: no generator header" >&2; differ=1; continue; }
  MORAINE_ABI_DIR="$scratch" "$root/scripts/generate_ducklake_abi.sh" "$ducklake_git" "$commit" \
    "$release" >/dev/null
  if cmp -s "$file" "$scratch/$(basename "$file")"; then
    echo "${file#"$root"/}: as generated from DuckLake ${commit:0:8} for DuckDB $release"
  else
    echo "${file#"$root"/}: differs from what the script generates" >&2
    diff "$file" "$scratch/$(basename "$file")" >&2 || true
    differ=1
  fi
done
exit "$differ"
