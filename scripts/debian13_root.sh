#!/usr/bin/env bash
# Makes the Debian 13 (trixie) root that tests/ecosystem/debian13_test.cpp
# runs moraine's extension in: a minimal root from Debian's own debootstrap
# (minbase, plus python3), and the stock `duckdb` wheels for Python 3.13 pinned
# in deps/pins.tsv (rows duckdb-python-cp313*, one per supported DuckDB
# release), each unzipped without pip into /opt/duckdb-py (the pinned release)
# or /opt/duckdb-py-<release>. Nothing else goes in: the test copies in the
# extension files.
#
# The root is kept per machine, outside the clone, so that a second clone or a
# later CI run on the same machine reuses it:
#   ${MORAINE_CACHE:-$HOME/.cache/moraine}/debian13-root
# Idempotent: a stamp beside the root records what it holds, and a run that
# finds it in place does nothing. A root is built in a temporary folder and
# renamed into place only when complete, so an interrupted run never leaves
# one that looks done.
#
# The mirror is the one this host's apt is configured with (or
# MORAINE_DEBIAN_MIRROR), read at run time.
#
# On success prints the root's path on stdout (logs go to stderr) and exits 0.
# Otherwise prints the reason and exits with:
#   20  not root (debootstrap and chroot need it)
#   21  debootstrap is missing and apt-get cannot install it
#   22  no Debian mirror in this host's apt configuration
#   23  the mirror does not answer (no network?)
#   24  debootstrap failed
#   25  the pinned wheel could not be fetched or does not match its sha256
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${MORAINE_CACHE:-$HOME/.cache/moraine}"
root="$cache/debian13-root"
suite=trixie
# What the stamp records: a change here rebuilds the root.
recipe="debootstrap --variant=minbase --include=python3 $suite"

log() { printf 'debian13_root: %s\n' "$*" >&2; }
fail() {
  local code="$1"
  shift
  log "$*"
  exit "$code"
}

# The URI of this host's Debian archive: the first deb822 stanza (or
# one-line deb entry) whose suites name a Debian release, not its security
# archive. Third-party repositories name their own suites and are passed over.
host_mirror() {
  local releases='^(buster|bullseye|bookworm|trixie|forky|sid|oldstable|stable|testing|unstable)$'
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f $file ]] || continue
    awk -v releases="$releases" '
      function flush() {
        if (uri != "" && uri !~ /-security\/?$/) {
          n = split(suites, s, /[ \t]+/)
          for (i = 1; i <= n; i++) if (s[i] ~ releases) { print uri; exit }
        }
        uri = ""; suites = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
      END { flush() }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $file ]] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E 's/\[[^]]*\]//' "$file" |
      awk -v releases="$releases" '$1 == "deb" && $2 !~ /-security\/?$/ && $3 ~ releases { print $2 }'
  done
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null && return
  log "installing Debian's debootstrap with apt-get"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends debootstrap >/dev/null; } >&2; then
    fail 21 "debootstrap is not installed and apt-get could not install it"
  fi
  command -v debootstrap >/dev/null || fail 21 "apt-get ran but debootstrap is still missing"
}

# The debootstrapped system itself, built aside and renamed into place.
make_root() {
  local stamp="$cache/debian13-root.stamp"
  [[ -f $stamp && $(cat "$stamp") == "$recipe" && -x $root/usr/bin/python3 ]] && return
  ensure_debootstrap
  local mirror="${MORAINE_DEBIAN_MIRROR:-}"
  [[ -n $mirror ]] || mirror="$(host_mirror | head -n1)"
  [[ -n $mirror ]] || fail 22 "found no Debian archive in /etc/apt (set MORAINE_DEBIAN_MIRROR)"
  # A clear answer for no network, before debootstrap's long one.
  if ! wget -q -T 20 -t 2 -O /dev/null "${mirror%/}/dists/$suite/InRelease" 2>/dev/null; then
    fail 23 "the Debian archive of this host's apt configuration does not serve $suite (no network?)"
  fi
  local started=$SECONDS tmp
  tmp="$(mktemp -d "$cache/debian13-root.tmp.XXXXXX")"
  # Removed on any exit; --one-file-system: never into a mount inside it.
  trap 'rm -rf --one-file-system "$tmp"' EXIT
  log "making a minimal Debian $suite root (debootstrap, a few minutes)"
  # In a mount namespace of its own: the /proc and /sys that debootstrap
  # mounts inside the root go with it, even if it is killed.
  if ! unshare --mount --propagation private -- debootstrap --variant=minbase \
    --include=python3 "$suite" "$tmp" "$mirror" >"$cache/debian13-root.log" 2>&1; then
    tail -n 20 "$cache/debian13-root.log" >&2
    fail 24 "debootstrap failed; its log: $cache/debian13-root.log"
  fi
  chmod 755 "$tmp"
  rm -f "$stamp"
  rm -rf --one-file-system "$root"
  mv "$tmp" "$root"
  trap - EXIT
  echo "$recipe" >"$stamp"
  log "made $root in $((SECONDS - started)) s"
}

# A stock wheel, verified on the host and unzipped into the root: the row
# duckdb-python-cp313 into /opt/duckdb-py, duckdb-python-cp313-<release> into
# /opt/duckdb-py-<release>. Each has a stamp of its own, so that a new pin
# replaces its wheel without a new root.
install_wheel() {
  local name="$1" client package file sha
  read -r _ client package file sha < <(awk -F'\t' -v name="$name" '$1 == name' \
    "$repo/deps/pins.tsv")
  [[ -n ${sha:-} ]] || fail 25 "deps/pins.tsv has no row $name"
  local release="${name#duckdb-python-cp313}"
  local target="$root/opt/duckdb-py$release"
  local stamp="$cache/debian13-wheel$release.stamp"
  [[ -f $stamp && $(cat "$stamp") == "$sha" && -d $target/duckdb ]] && return
  local downloads="$cache/downloads"
  mkdir -p "$downloads"
  if [[ ! -f $downloads/$file || $(sha256sum "$downloads/$file" | cut -d' ' -f1) != "$sha" ]]; then
    log "fetching $package for CPython 3.13"
    local tmp
    tmp="$(mktemp -d)"
    # The wheel for trixie's python3, not the host's: pip is told which.
    if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.13 \
      --implementation cp --platform manylinux_2_28_x86_64 -d "$tmp" "$package" >&2; then
      rm -rf "$tmp"
      fail 25 "pip could not download $package for CPython 3.13"
    fi
    if [[ ! -f $tmp/$file ]]; then
      log "expected $file, got: $(ls "$tmp")"
      rm -rf "$tmp"
      fail 25 "pip downloaded another file than the pinned $file"
    fi
    local got
    got="$(sha256sum "$tmp/$file" | cut -d' ' -f1)"
    if [[ $got != "$sha" ]]; then
      rm -rf "$tmp"
      fail 25 "checksum mismatch for $file: expected $sha, got $got"
    fi
    mv "$tmp/$file" "$downloads/$file"
    rm -rf "$tmp"
  fi
  rm -f "$stamp"
  rm -rf "$target.tmp" "$target"
  mkdir -p "$root/opt"
  unzip -q "$downloads/$file" -d "$target.tmp"
  mv "$target.tmp" "$target"
  echo "$sha" >"$stamp"
}

((EUID == 0)) || fail 20 "not root: debootstrap and chroot need root"
mkdir -p "$cache"
# One run at a time per machine: tests may start this concurrently.
exec 9>"$cache/debian13-root.lock"
flock 9
# Leftovers of runs that were killed before they could clean up.
rm -rf --one-file-system "$cache"/debian13-root.tmp.*
make_root
while read -r wheel; do
  install_wheel "$wheel"
done < <(awk -F'\t' '$2 == "pip-wheel-cp313" { print $1 }' "$repo/deps/pins.tsv")
echo "$root"
