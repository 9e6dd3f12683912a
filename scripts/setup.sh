#!/usr/bin/env bash
# Brings a fresh Debian machine to the point where moraine builds and tests:
# Debian packages through apt-get, then the pinned DuckDB/DuckLake artifacts
# (deps/pins.tsv) through pip, npm and go by package name into .cache/deps,
# and the stock DuckDB (Python package and CLI) into a venv there.
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
  # npm, node, pip and go may come from a toolchain that apt did not install; a
  # working command is enough.
  local not_needed=()
  command -v npm >/dev/null && not_needed+=(npm)
  command -v node >/dev/null && not_needed+=(nodejs)
  python3 -m pip --version >/dev/null 2>&1 && not_needed+=(python3-pip)
  go_command >/dev/null && not_needed+=(golang-go)
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

# The go command: on PATH, at the usual toolchain location, or none.
go_command() {
  command -v go 2>/dev/null || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; }
}

# Fetches a Go module's zip with `go mod download` into a scratch module
# cache (go also verifies it against its checksum database) and copies it out.
fetch_go_module() {
  local module="$1" scratch="$2" out="$3"
  local go info zip
  go="$(go_command)" || { log "go is missing"; exit 1; }
  info="$(cd "$scratch" && GOPATH="$scratch/gopath" GOMODCACHE="$scratch/gopath/mod" \
    GOFLAGS=-modcacherw GOTOOLCHAIN=local GO111MODULE=on "$go" mod download -json "$module")"
  zip="$(python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["Zip"])' <<<"$info")"
  cp "$zip" "$out"
  rm -rf "$scratch/gopath"
}

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
    pip-wheel | pip-venv*)
      python3 -m pip download --quiet --no-deps --only-binary :all: -d "$tmp" "$package" ;;
    npm | npm-node*)
      (cd "$tmp" && npm pack --silent "$package" >/dev/null) ;;
    go-mod)
      fetch_go_module "$package" "$tmp" "$tmp/$file" ;;
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
# Client npm-node:vX.Y.Z unpacks a package where Node finds it by name,
# .cache/deps/node-vX.Y.Z/node_modules/<package>.
unpack_artifact() {
  local name="$1" client="$2" package="$3" file="$4" sha="$5"
  [[ $client == pip-venv* ]] && return  # installed into a venv instead
  local stamp="$stamp_dir/$name"
  [[ -f $stamp && $(cat "$stamp") == "$sha" ]] && return
  local src="$cache/downloads/$file" out="$cache/$name"
  [[ $client == npm-node:* ]] && out="$cache/node-${client#npm-node:}/node_modules/${package%@*}"
  rm -rf "$out"
  mkdir -p "$out"
  case "$file" in
    *.tar.gz | *.tgz) tar xzf "$src" -C "$out" --strip-components=1 ;;
    *.whl) unzip -q "$src" -d "$out" ;;
    *.zip)
      # A Go module zip holds one folder, <module>@<version>/.
      unzip -q "$src" -d "$out.tmp"
      rm -rf "$out"
      mv "$(dirname "$(find "$out.tmp" -name go.mod | head -n1)")" "$out"
      rm -rf "$out.tmp" ;;
  esac
  echo "$sha" >"$stamp"
}

# The stock DuckDB that users run (the pip-venv pins: the Python package and
# the CLI) in a venv, installed from the verified wheels only: client
# pip-venv goes to .cache/deps/venv, pip-venv:vX.Y.Z to .cache/deps/venv-vX.Y.Z.
install_venv() {
  local venv="$cache/$1"
  shift
  local wheels=("$@")
  local stamp="$stamp_dir/${venv##*/}" want
  want="$(python3 --version) ${wheels[*]##*/}"
  [[ -f $stamp && $(cat "$stamp") == "$want" && -x $venv/bin/python ]] && return
  log "installing the stock DuckDB into $venv"
  rm -rf "$venv"
  python3 -m venv --without-pip "$venv"
  python3 -m pip --python "$venv/bin/python" install --quiet --no-index --no-deps \
    --disable-pip-version-check "${wheels[@]}"
  echo "$want" >"$stamp"
}

install_debian_packages
declare -A venv_wheels=()
while IFS=$'\t' read -r name client package file sha; do
  [[ -z $name || $name == \#* ]] && continue
  # Rows other scripts fetch: scripts/build_static_deps.sh and
  # scripts/build_ducklake.sh build the crates, scripts/debian13_root.sh puts
  # the Python 3.13 wheel into its root.
  [[ $client == crate* || $client == git || $client == pip-wheel-cp313 ]] && continue
  fetch_artifact "$client" "$package" "$file" "$sha"
  unpack_artifact "$name" "$client" "$package" "$file" "$sha"
  if [[ $client == pip-venv* ]]; then
    venv="venv${client#pip-venv}"
    venv_wheels[${venv/:/-}]+="$cache/downloads/$file "
  fi
done <"$root/deps/pins.tsv"
for venv in "${!venv_wheels[@]}"; do
  read -ra wheels <<<"${venv_wheels[$venv]}"
  install_venv "$venv" "${wheels[@]}"
done

# Stable paths the build uses, independent of the artifacts' inner layouts.
ln -sfn "$cache/duckdb-source/external/duckdb" "$cache/duckdb"
ln -sfn "$cache/duckdb-source/external/duckdb" "$cache/duckdb-v1.5.5"
ln -sfn "$cache/duckdb-source-v1.5.6/external/duckdb" "$cache/duckdb-v1.5.6"
ln -sfn "$cache/duckdb-source-v2.0.1/external/duckdb" "$cache/duckdb-v2.0.1"
ln -sfn venv "$cache/venv-v1.5.5"  # every release's venv by one name pattern
ln -sfn "$cache/libduckdb/libduckdb.so" "$cache/libduckdb.so"
ln -sfn "$(find "$cache/ducklake" -name ducklake.duckdb_extension | head -n1)" \
  "$cache/ducklake.duckdb_extension"
ln -sfn "$(find "$cache/postgres-extension" -name postgres.duckdb_extension | head -n1)" \
  "$cache/postgres_scanner.duckdb_extension"
ln -sfn "$(find "$cache/sqlite-extension" -name sqlite.duckdb_extension | head -n1)" \
  "$cache/sqlite_scanner.duckdb_extension"

# The statically linked libraries, built once per machine (.cache/deps/static).
"$root/scripts/build_static_deps.sh"
# DuckLake of each release no registry serves a binary of, built from its
# pinned source once per machine (skipped, with the reason, without it).
"$root/scripts/build_ducklake.sh" v1.5.6
# DuckDB's static library of each release no registry serves one of, built
# from its sources once per machine (about 20 minutes on 2 cores).
"$root/scripts/build_duckdb_static.sh" v2.0.1
