# Sourced by the scripts that build an artifact once per machine, outside the
# clone (scripts/build_ducklake.sh, scripts/build_duckdb_static.sh): the
# artifact lives in ${MORAINE_CACHE:-$HOME/.cache/moraine}/<kind>/<key>/,
# marked complete by a .complete file, and a clone links to it. Runs of one
# kind take a lock, so concurrent setups build it once.
#
#   machine_cache_open KIND KEY LINK   sets machine_cache_prefix
#   machine_cache_publish              links LINK to the artifact
#   machine_cache_built                true (and links) if the artifact exists
#   machine_cache_lock                 takes the kind's lock; true (and links)
#                                      if another run built it meanwhile
#   machine_cache_scratch              sets work to a scratch folder removed at exit
#   machine_cache_store DIR            makes DIR the artifact, complete, and links it

machine_cache_open() {
  machine_cache_kind_dir="${MORAINE_CACHE:-$HOME/.cache/moraine}/$1"
  machine_cache_prefix="$machine_cache_kind_dir/$2"
  machine_cache_link="$3"
  mkdir -p "$machine_cache_kind_dir" "$(dirname "$machine_cache_link")"
}

machine_cache_publish() { ln -sfn "$machine_cache_prefix" "$machine_cache_link"; }

machine_cache_built() {
  [[ -f $machine_cache_prefix/.complete ]] && machine_cache_publish
}

machine_cache_lock() {
  exec 9>"$machine_cache_kind_dir/.lock"
  flock 9
  machine_cache_built
}

machine_cache_scratch() {
  work="$(mktemp -d "$machine_cache_kind_dir/.build.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
}

machine_cache_store() {
  touch "$1/.complete"
  rm -rf "$machine_cache_prefix"
  mv "$1" "$machine_cache_prefix"
  machine_cache_publish
}
