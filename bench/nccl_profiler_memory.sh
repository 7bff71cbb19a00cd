#!/usr/bin/env bash
# Whether fabscope's NCCL profiler plugin holds its memory and its files flat over a long
# job (issue 40): the replay driver's timeline (8 ranks of a ring all-reduce, one process,
# calls back to back as NCCL's proxy sees them) runs for SECONDS with snapshots every
# INTERVAL seconds (FABSCOPE_PROFILE_INTERVAL, the default FABSCOPE_PROFILE_KEEP of 8) and
# the Prometheus textfile (FABSCOPE_PROFILE_PROM); every SECONDS/20 the process's resident
# memory (VmRSS), the snapshot files on disk and their bytes are printed, then the growth
# from the first sample after the first interval to the last.
#
#   bench/nccl_profiler_memory.sh [BUILD_DIR] [SECONDS] [INTERVAL]
#     defaults: build/release, 3600 (one hour), 1
set -euo pipefail
build=${1:-build/release}
seconds=${2:-3600}
interval=${3:-1}
plugin="$build/libnccl-profiler-fabscope.so"
replay="$build/fabscope_profile_replay"
for f in "$plugin" "$replay"; do
  [[ -e $f ]] || { echo "missing $f: build the project first (scripts/build.sh release)" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/prom"
FABSCOPE_PROFILE_INTERVAL=$interval FABSCOPE_PROFILE_PROM="$dir/prom" \
  "$replay" timeline "$plugin" "$dir" 8 "$seconds" 2 3 4 "$((seconds / 2))" >"$dir/out.txt" &
pid=$!
step=$(awk -v s="$seconds" 'BEGIN { x = s / 20; print (x < 1 ? 1 : x) }')
echo "== $seconds s, snapshots every $interval s, 8 ranks in one process (pid $pid), a sample every $step s"
printf '%8s %10s %10s %8s %12s %12s\n' "t (s)" "VmRSS KiB" "VmHWM KiB" "files" "bytes" "newest seq"
first=""
last=""
t0=$(date +%s.%N)
while kill -0 "$pid" 2>/dev/null; do
  sleep "$step"
  [[ -r /proc/$pid/status ]] || break
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [[ -n $rss ]] || break
  files=$(find "$dir" -name 'fabscope-snapshot-*.json' | wc -l)
  bytes=$(find "$dir" -name 'fabscope-snapshot-*.json' -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  seq=$(find "$dir" -name 'fabscope-snapshot-*-r0-s*.json' -printf '%f\n' | sed 's/.*-s0*\([0-9]*\)\.json/\1/' |
        sort -n | tail -1)
  t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  printf '%8s %10s %10s %8s %12s %12s\n' "$t" "$rss" "$hwm" "$files" "$bytes" "${seq:-0}"
  [[ -n $first ]] || first=$rss
  last=$rss
done
wait "$pid"
echo "replay: $(cat "$dir/out.txt")"
echo "prometheus textfile removed at exit: $([[ -z $(ls "$dir/prom") ]] && echo yes || echo "no: $(ls "$dir/prom")")"
awk -v a="$first" -v b="$last" 'BEGIN { printf "resident memory: %d KiB at the first sample, %d KiB at the last: %+d KiB\n", a, b, b - a }'
