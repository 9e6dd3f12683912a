#!/usr/bin/env bash
# Brings a fresh Debian machine to the point where moraine builds and tests:
# Debian packages through apt-get, then the pinned DuckDB/DuckLake artifacts
# (deps/pins.tsv) through pip and npm by package name into .cache/deps.
# Every artifact is checked against its sha256 before it is unpacked.
# Idempotent: a second run finds everything in place and does nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/deps"
stamp_dir="$cache/stamps"
mkdir -p "$cache/downloads" "$stamp_dir"

log() { printf 'setup: %s\n' "$*" >&2; }

install_debian_packages() {
  local wanted=() missing=()
  mapfile -t wanted < <(grep -v '^\s*#' "$root/deps/apt-packages.txt" | grep -v '^\s*$')
  for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  # npm and pip may come from a toolchain that apt did not install; a working
  # command is enough.
  local not_needed=()
  command -v npm >/dev/null && not_needed+=(npm)
  python3 -m pip --version >/dev/null 2>&1 && not_needed+=(python3-pip)
  local filtered=()
  for pkg in "${missing[@]+"${missing[@]}"}"; do
    [[ " ${not_needed[*]+"${not_needed[*]}"} " == *" $pkg "* ]] || filtered+=("$pkg")
  done
  missing=("${filtered[@]+"${filtered[@]}"}")
  ((${#missing[@]} == 0)) && return
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Downloads one pinned artifact unless a verified copy is already cached.
fetch_artifact() {
  local client="$1" package="$2" file="$3" sha="$4"
  local dest="$cache/downloads/$file"
  if [[ -f $dest && $(sha256_of "$dest") == "$sha" ]]; then return; fi
  rm -f "$dest"
  local tmp
  tmp="$(mktemp -d)"
  log "fetching $package"
  case "$client" in
    pip-sdist)
      python3 -m pip download --quiet --no-deps --no-binary "${package%%==*}" -d "$tmp" "$package" ;;
    pip-wheel)
      python3 -m pip download --quiet --no-deps --only-binary :all: -d "$tmp" "$package" ;;
    npm)
      (cd "$tmp" && npm pack --silent "$package" >/dev/null) ;;
    *) log "unknown client $client"; exit 1 ;;
  esac
  if [[ ! -f $tmp/$file ]]; then
    log "expected $file from $package, got: $(ls "$tmp")"
    exit 1
  fi
  local got
  got="$(sha256_of "$tmp/$file")"
  if [[ $got != "$sha" ]]; then
    log "checksum mismatch for $file: expected $sha, got $got"
    exit 1
  fi
  mv "$tmp/$file" "$dest"
  rm -rf "$tmp"
}

# Unpacks a verified artifact once; the stamp records which checksum it came from.
unpack_artifact() {
  local name="$1" file="$2" sha="$3"
  local stamp="$stamp_dir/$name"
  [[ -f $stamp && $(cat "$stamp") == "$sha" ]] && return
  local src="$cache/downloads/$file" out="$cache/$name"
  rm -rf "$out"
  mkdir -p "$out"
  case "$file" in
    *.tar.gz | *.tgz) tar xzf "$src" -C "$out" --strip-components=1 ;;
    *.whl) unzip -q "$src" -d "$out" ;;
  esac
  echo "$sha" >"$stamp"
}

install_debian_packages
while IFS=$'\t' read -r name client package file sha; do
  [[ -z $name || $name == \#* ]] && continue
  fetch_artifact "$client" "$package" "$file" "$sha"
  unpack_artifact "$name" "$file" "$sha"
done <"$root/deps/pins.tsv"

# Stable paths the build uses, independent of the artifacts' inner layouts.
ln -sfn "$cache/duckdb-source/external/duckdb" "$cache/duckdb"
ln -sfn "$cache/libduckdb/libduckdb.so" "$cache/libduckdb.so"
ln -sfn "$(find "$cache/ducklake" -name ducklake.duckdb_extension | head -n1)" \
  "$cache/ducklake.duckdb_extension"
