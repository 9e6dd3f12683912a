#!/usr/bin/env bash
# Appends DuckDB's extension metadata footer to a built shared library, which
# DuckDB reads before it loads a file as an extension: 8 fields of 32 bytes
# (three unused, then ABI type, extension version, DuckDB version, platform and
# the magic "4"), followed by a 256-byte signature (left empty: the file is an
# unsigned extension).
# usage: append_extension_metadata.sh FILE DUCKDB_VERSION PLATFORM EXTENSION_VERSION
set -euo pipefail
file="$1" duckdb_version="$2" platform="$3" extension_version="$4"
field() {
  local value="$1"
  if ((${#value} > 32)); then echo "metadata field too long: $value" >&2; exit 1; fi
  printf '%s' "$value"
  head -c $((32 - ${#value})) /dev/zero
}
{
  field ""
  field ""
  field ""
  field "CPP"
  field "$extension_version"
  field "$duckdb_version"
  field "$platform"
  field "4"
  head -c 256 /dev/zero
} >>"$file"
