#!/usr/bin/env bash
# Runs libFuzzer targets for a bounded time and prints their figures.
#
#   tests/fuzz/run.sh <fuzz build dir> <seconds per target> [target...]
#
# Each target starts from its generated seeds (fuzz_seeds), the checked-in
# regression inputs in tests/fuzz/corpus/<target>/ (past findings, replayed
# first on every run) and the corpus earlier runs grew in
# <build>/corpus/<target>/. A finding is saved under <build>/artifacts/<target>/
# and fails the run. Without targets, runs all four one after another.
set -euo pipefail

bin="$(cd "$1" && pwd)"
seconds="$2"
shift 2
targets=("$@")
((${#targets[@]} > 0)) || targets=(key_decode value_frame row_mapping store_open)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Readable stack traces in findings, when LLVM's symbolizer is installed.
for symbolizer in /usr/lib/llvm-14/bin/llvm-symbolizer "$(command -v llvm-symbolizer || true)"; do
  if [[ -x $symbolizer ]]; then
    export ASAN_SYMBOLIZER_PATH="$symbolizer"
    break
  fi
done
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# Scratch space for the store-open target's store copies and RocksDB's
# read-only scratch directories: tmpfs where there is one (opens sync files),
# removed after each target even when a finding ended it early.
scratch_base=/dev/shm
[[ -d $scratch_base && -w $scratch_base ]] || scratch_base="${TMPDIR:-/tmp}"

status=0
for target in "${targets[@]}"; do
  scratch="$(mktemp -d "$scratch_base/moraine-fuzz-XXXXXX")"
  seeds="$bin/seeds/$target" corpus="$bin/corpus/$target" artifacts="$bin/artifacts/$target"
  log="$bin/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  "$bin/fuzz_seeds" "$bin/seeds" "$target"
  dirs=("$corpus" "$seeds")
  [[ -d $here/corpus/$target ]] && dirs+=("$here/corpus/$target")
  before=$(find "$artifacts" -type f | wc -l)
  rc=0
  MORAINE_FUZZ_TMPDIR="$scratch" TMPDIR="$scratch" "$bin/fuzz_$target" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dirs[@]}" >"$log" 2>&1 || rc=$?
  rm -rf "$scratch"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  crashes=$(($(find "$artifacts" -type f | wc -l) - before))
  printf 'fuzz %s: %s executions in %s s, %d crashes, corpus %d inputs\n' "$target" \
    "${execs:-?}" "$seconds" "$crashes" "$(find "$corpus" -type f | wc -l)"
  if ((rc != 0 || crashes != 0)); then
    echo "fuzz $target failed (exit $rc); log: $log, inputs: $artifacts" >&2
    grep -E 'ERROR|runtime error|contract violated|untyped exception|Assertion|SUMMARY' "$log" |
      head -n 20 >&2 || true
    status=1
  fi
done
exit "$status"
