#!/usr/bin/env bash
# fabscope's GPU check in one call of a lent GPU machine (one H100 or H200, CUDA 13, NCCL
# from the nvidia-nccl-cu13 Python package, no Open MPI, no network). Run from the project
# root there:
#
#   bash bench/gpu_check.sh [--dry-run] [--part 2|3] [--carry DIR]
#
# Part 1 (the default) is the GPU issue's check (issue 35); part 2, a second call, is the
# running-job watch's (issue 40): a minute of all-reduce with the plugin set only by its
# environment lines and snapshots every 2 s, `fabscope watch` beside it, and busbw with and
# without snapshots. Part 3 takes the pattern kernels apart for work on them where no GPU
# and no disassembler is: their sm_90 SASS, and Nsight Compute's instruction, memory,
# occupancy and warp-state sections on the slowest kernels. Each part fits one call.
#
# DIR (default carry) is the bundle made here: scripts/carry-openmpi.sh DIR build/release/fabscope
# build/release/fabscope_gpu_tests build/release/fabscope_nccl_gpu_tests
# build/release/fabscope_bench_kernel_bandwidth build/release/libnccl-profiler-fabscope.so
# (env.sh, bin/), and bench/build-nccl-tests.sh SRC DIR/nccl-tests.
#
# Every step has its own timeout and the script goes on after a failure. Logs, JSON
# reports and NCCL logs are written under $GPU_CHECK_WORK (default /tmp/gpu-check-work) and
# packed into $OUT/gpu-check.tgz after every step, so that $OUT (default /tmp/gpu-out)
# only ever holds steps.txt (one line per step: rc, seconds) and that archive: the device
# machine gives back at most 8 files, and a call cut short still returns what was done.
# --dry-run prints every step (name, timeout, command) and the sum of the timeouts (at most
# 480 s, the call's length) and runs nothing.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/gpu_check.sh
LIMIT=480
# Two ranks with mpirun's default binding (no --bind-to); the environment travels with -x.
MPIRUN_BASE=(mpirun --allow-run-as-root -x LD_LIBRARY_PATH -x PATH -x FABSCOPE_NCCL_PROFILER)
MPIRUN=("${MPIRUN_BASE[@]}" -np 2)

# --- internal steps (run by `step` through this script, so that they have a timeout) ---

# Environment: GPU, driver, CUDA, NCCL, cores, the carried binaries' libraries.
internal_env() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -20
  echo "NCCL_LIB=${NCCL_LIB:-}"
  python3 -m pip show nvidia-nccl-cu13 2>/dev/null | grep -E '^(Name|Version|Location)'
  strings "${NCCL_LIB:-/nonexistent}/libnccl.so.2" 2>/dev/null | grep -m1 'NCCL version'
  { nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null; } | tail -2
  grep -m1 -o '"cuda" : {[^}]*' /usr/local/cuda/version.json 2>/dev/null | tr -s ' \n' ' '; echo
  echo "nproc: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo
  free -g | head -2
  echo "mpirun: $(command -v mpirun) ($(mpirun --version 2>&1 | head -1))"
  echo "RDMA devices: $(echo /sys/class/infiniband/*); NICs: $(echo /sys/class/net/*)"
  echo "--- ldd $F"
  ldd "$F" 2>&1
}

# Profiler overhead: two ranks sharing the GPU, sweep allreduce without and with
# --nccl-profile, alternating 3 times (the first swaps), paired busbw ratio on / off.
internal_profiler_overhead() {
  local d=$W/profiler-overhead i mode order
  mkdir -p "$d"
  for i in 0 1 2; do
    order="off on"
    [ $((i % 2)) = 1 ] && order="on off"
    for mode in $order; do
      local flag=()
      [ "$mode" = on ] && flag=(--nccl-profile)
      echo "$ ${MPIRUN[*]} $F sweep allreduce -b 1M -e 64M -f 4 -n 10 -w 2 --backend nccl --share-gpus ${flag[*]}"
      "${MPIRUN[@]}" "$F" sweep allreduce -b 1M -e 64M -f 4 -n 10 -w 2 --backend nccl --share-gpus "${flag[@]}" \
        --json "$d/$mode-$i.json" > "$d/$mode-$i.log" 2>&1
      echo "  rc=$?"
      tail -3 "$d/$mode-$i.log"
    done
  done
  python3 - "$d" <<'PY'
import json, os, statistics, sys
d = sys.argv[1]
def busbw(path):
    try:
        doc = json.load(open(path))
        return {p["size_bytes"]: p["out_of_place"]["busbw_gbps"] for p in doc["sweeps"][0]["points"]}
    except (OSError, ValueError, KeyError, IndexError):
        return None
pairs = [(busbw(f"{d}/off-{i}.json"), busbw(f"{d}/on-{i}.json")) for i in range(3)]
pairs = [(a, b) for a, b in pairs if a and b]
if not pairs:
    sys.exit("no complete pair of runs")
print(f"busbw with / without --nccl-profile, 2 ranks sharing the GPU, {len(pairs)} pair(s); target >= 0.98")
print(f"{'size':>12} {'off GB/s':>9} {'on GB/s':>9} {'median':>7} {'min':>6} {'max':>6}")
low = []
for size in sorted(set.intersection(*(set(a) & set(b) for a, b in pairs))):
    r = [b[size] / a[size] for a, b in pairs if a[size] > 0]
    med = statistics.median(r)
    low.append(med < 0.98)
    print(f"{size:>12} {statistics.median(a[size] for a, _ in pairs):>9.3f} "
          f"{statistics.median(b[size] for _, b in pairs):>9.3f} {med:>7.3f} {min(r):>6.3f} {max(r):>6.3f}")
print(f"{sum(low)} size(s) below 0.98")
sys.exit(1 if any(low) else 0)
PY
}

# Issue 40: the job's own environment lines (no --nccl-profile), snapshots every 2 s while
# two ranks sharing the GPU run all-reduce for a minute, `fabscope watch` reading them live
# with the job's NCCL logs; what it saw kept (its report, the last snapshots, the textfile).
internal_watch() {
  local d=$W/watch
  mkdir -p "$d/snaps" "$d/prom" "$d/nccl-logs"
  "$F" watch "$d/snaps" --interval 1 --duration 80 --nccl-log "$d/nccl-logs" --json "$d/watch.json" \
    --html "$d/watch.html" --prometheus "$d/watch.prom" > "$d/watch.log" 2>&1 &
  local watcher=$!
  (sleep 40; cp "$d"/prom/*.prom "$d/plugin-midrun.prom" 2>/dev/null) &
  echo "$ ${MPIRUN[*]} (NCCL_PROFILER_PLUGIN, FABSCOPE_PROFILE_*) $F sweep allreduce -b 64M -e 64M -N 0 --duration 60"
  "${MPIRUN[@]}" -x NCCL_PROFILER_PLUGIN="$FABSCOPE_NCCL_PROFILER" -x FABSCOPE_PROFILE_DIR="$d/snaps" \
    -x FABSCOPE_PROFILE_INTERVAL=2 -x FABSCOPE_PROFILE_KEEP=100 -x FABSCOPE_PROFILE_PROM="$d/prom" \
    "$F" sweep allreduce -b 64M -e 64M -N 0 --duration 60 --backend nccl --share-gpus \
    --nccl-debug-dir "$d/nccl-logs" --json "$d/sweep.json" > "$d/sweep.log" 2>&1
  echo "  sweep rc=$?"
  wait "$watcher"
  echo "  watch rc=$?"
  tail -5 "$d/watch.log"
  python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
w = json.load(open(f"{d}/watch.json"))["watch"]
print(f"watch: {w['snapshots']} snapshots, {w['intervals']} intervals judged")
for l in w["links"]:
    print(f"  {l['rank']} -> {l['peer']} {l['direction']} nic={l['nic'] or '?'} median {l['median_wait_us_per_step']:.0f} us/step, "
          f"last rate {l['last_bytes_per_s'] / 1e9:.2f} GB/s, moved {l['bytes_total'] / 2**30:.1f} GiB, slow_from {l['slow_from']}")
PY
}

# Issue 40: busbw of two ranks sharing the GPU with the plugin writing snapshots every 0.5 s
# against the plugin alone (--nccl-profile both times), alternating 3 times.
internal_snapshot_overhead() {
  local d=$W/snapshot-overhead i mode order
  mkdir -p "$d/snaps"
  for i in 0 1 2; do
    order="off on"
    [ $((i % 2)) = 1 ] && order="on off"
    for mode in $order; do
      local env=()
      [ "$mode" = on ] && env=(-x FABSCOPE_PROFILE_INTERVAL=0.5 -x FABSCOPE_PROFILE_DIR="$d/snaps")
      "${MPIRUN[@]}" "${env[@]}" "$F" sweep allreduce -b 1M -e 64M -f 4 -n 10 -w 2 --backend nccl --share-gpus \
        --nccl-profile --json "$d/$mode-$i.json" > "$d/$mode-$i.log" 2>&1
      echo "  $mode-$i rc=$?"
    done
  done
  python3 - "$d" <<'PY'
import json, statistics, sys
d = sys.argv[1]
def busbw(path):
    try:
        return {p["size_bytes"]: p["out_of_place"]["busbw_gbps"] for p in json.load(open(path))["sweeps"][0]["points"]}
    except (OSError, ValueError, KeyError, IndexError):
        return None
pairs = [(busbw(f"{d}/off-{i}.json"), busbw(f"{d}/on-{i}.json")) for i in range(3)]
pairs = [(a, b) for a, b in pairs if a and b]
if not pairs:
    sys.exit("no complete pair of runs")
print(f"busbw with / without snapshots (0.5 s), 2 ranks sharing the GPU, {len(pairs)} pair(s); target >= 0.99")
for size in sorted(set.intersection(*(set(a) & set(b) for a, b in pairs))):
    r = [b[size] / a[size] for a, b in pairs if a[size] > 0]
    print(f"{size:>12} off {statistics.median(a[size] for a, _ in pairs):8.3f} on {statistics.median(b[size] for _, b in pairs):8.3f} "
          f"ratio median {statistics.median(r):.3f} (min {min(r):.3f})")
PY
}

# Nsight Compute on the first launches of the fill and the verify kernel (int8, a sum's
# values: the benchmark's first), then on the first checks of float or a 16-bit float
# (demangled names count_kernel<float, ...>, count_kernel<unsigned short, ...>): DRAM and
# SM throughput as a share of peak, and each kernel's time.
internal_ncu() {
  local ncu k base
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for k in fill_kernel count_kernel 'regex:count_kernel<(float|unsigned short)'; do
    base=function
    [[ $k == regex:* ]] && base=demangled
    "$ncu" --kernel-name-base "$base" --kernel-name "$k" --launch-count 2 \
      --metrics dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
      "$KB"
  done
}

# Part 3: every kernel's sm_90 SASS (cuobjdump), and Nsight Compute's sections on the
# kernels furthest from the copy (issue 35's H200 figures): the half check and float's
# check of sums, int8's product fill and its reduced product check. Demangled names:
# fill_kernel<S, Conv, Kind, ROp>, count_kernel<...>; Kind 0 sum, 1 product; ROp -1 a
# rank's input, 1 a product's reduction.
internal_kernel_sass() {
  local cob
  cob=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  "$cob" -sass -arch sm_90 "$KB" | gzip > "$W/kernels-sm90.sass.gz"
  local rc=${PIPESTATUS[0]}
  ls -l "$W/kernels-sm90.sass.gz"
  return "$rc"
}
internal_ncu_detail() {
  local ncu k
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for k in 'regex:count_kernel<unsigned short, .*2, .*0, \(int\)-1>' 'regex:count_kernel<float, .*0, \(int\)-1>' \
           'regex:fill_kernel<signed char, .*1, \(int\)-1>' 'regex:count_kernel<signed char, .*1, \(int\)1>'; do
    "$ncu" --kernel-name-base demangled --kernel-name "$k" --launch-count 1 --section SpeedOfLight \
      --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section Occupancy --section LaunchStats --section WarpStateStats "$KB"
  done
}

if [ "${1:-}" = __ncu ]; then internal_ncu; exit; fi
if [ "${1:-}" = __kernel_sass ]; then internal_kernel_sass; exit; fi
if [ "${1:-}" = __ncu_detail ]; then internal_ncu_detail; exit; fi
if [ "${1:-}" = __env ]; then internal_env 2>&1 | tee "$W/env.txt"; exit; fi
if [ "${1:-}" = __profiler_overhead ]; then internal_profiler_overhead; exit; fi
if [ "${1:-}" = __watch ]; then internal_watch; exit; fi
if [ "${1:-}" = __snapshot_overhead ]; then internal_snapshot_overhead; exit; fi

# --- arguments ---
dry=0
only=""  # --only a,b: just those steps (a second call for what the first left open)
part=1   # --part 2: the watch's steps
C=carry
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1 ;;
    --only) only=",${2:?--only needs step names, comma-separated},"; shift ;;
    --only=*) only=",${1#--only=}," ;;
    --part) part=${2:?--part needs 1, 2 or 3}; shift ;;
    --carry) C=${2:?--carry needs a directory}; shift ;;
    --carry=*) C=${1#--carry=} ;;
    -h|--help) sed -n '2,19p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_check: unknown argument $1 (--dry-run, --part 1|2|3, --only STEP,..., --carry DIR)" >&2; exit 2 ;;
  esac
  shift
done
[ "$part" = 1 ] || [ "$part" = 2 ] || [ "$part" = 3 ] || { echo "gpu_check: --part $part: give 1, 2 or 3" >&2; exit 2; }
# --only names steps that exist: the names the full dry run of the part lists.
if [ -n "$only" ]; then
  known=$(bash "$self" --dry-run --part "$part" | awk '/^[a-z0-9-]+ +[0-9]+s  /{print $1}' | tr '\n' ' ')
  IFS=, read -r -a wanted <<<"${only#,}"
  for name in "${wanted[@]}"; do
    [[ " $known" == *" $name "* ]] && continue
    echo "gpu_check: --only: no step '$name'; the steps: $known" >&2
    exit 2
  done
fi
OUT=${OUT:-/tmp/gpu-out}
W=${GPU_CHECK_WORK:-/tmp/gpu-check-work}
F=$C/bin/fabscope
NT=$C/nccl-tests
PARITY=$here/nccl_vs_nccl_tests.py
KB=$C/bin/fabscope_bench_kernel_bandwidth
export W F KB

# --- the steps ---
total=0
T0=$(date +%s%N)
step() { # NAME TIMEOUT CMD...: CMD's output in $W/NAME.log, one line in steps.txt, the archive refreshed
  local name=$1 t=$2
  shift 2
  [ "$in_part" = "$part" ] || return 0
  if [ -n "$only" ] && [[ "$only" != *",$name,"* ]]; then return; fi
  total=$((total + t))
  if [ "$dry" = 1 ]; then
    printf '%-18s %4ss  %s\n' "$name" "$t" "$(printf '%q ' "$@")"
    return
  fi
  local s e rc
  s=$(date +%s%N)
  timeout -k 5 "$t" "$@" > "$W/$name.log" 2>&1
  rc=$?
  e=$(date +%s%N)
  printf '%-18s rc=%-4s %7.1fs  (limit %4ss, t=%4ss)\n' "$name" "$rc" "$(((e - s) / 1000000))e-3" "$t" \
    "$(((e - T0) / 1000000000))" | tee -a "$OUT/steps.txt"
  cp "$OUT/steps.txt" "$W/steps.txt"
  tar -C "$W" -czf "$OUT/gpu-check.tgz.part" . && mv -f "$OUT/gpu-check.tgz.part" "$OUT/gpu-check.tgz"
}

if [ "$dry" = 0 ]; then
  for f in "$C/env.sh" "$F" "$C/bin/fabscope_gpu_tests" "$C/bin/fabscope_nccl_gpu_tests" \
           "$C/bin/fabscope_bench_kernel_bandwidth" "$C/bin/libnccl-profiler-fabscope.so" "$NT/all_reduce_perf"; do
    [ -e "$f" ] || echo "gpu_check: missing $f (the step that needs it will fail)" >&2
  done
  mkdir -p "$OUT" "$W/nccl-logs/sweep-all-np1" "$W/nccl-logs/p2p-np2"
  rm -f "$OUT/steps.txt" "$OUT/gpu-check.tgz"
  NCCL_LIB=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null)
  if [ ! -e "$NCCL_LIB/libnccl.so.2" ]; then
    NCCL_LIB=$(dirname "$(find / -xdev -name 'libnccl.so.2' 2>/dev/null | head -1)")
  fi
  export NCCL_LIB
  # shellcheck disable=SC1091
  source "$C/env.sh"
  export LD_LIBRARY_PATH=$NCCL_LIB:$NT/verifiable${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export FABSCOPE_NCCL_PROFILER=$C/bin/libnccl-profiler-fabscope.so
  export PYTHONUNBUFFERED=1
  # The parity runs keep every run's output; each run of them has its own limit.
fi

# a. the machine (also into env.txt)
in_part=1
step env                5 bash "$self" __env
# b. the GPU tests
step gtest-kernels     15 "$C/bin/fabscope_gpu_tests"
step gtest-nccl        15 "$C/bin/fabscope_nccl_gpu_tests"
# c. fill/verify kernels against a device copy, per data type
step kernel-bw         10 "$C/bin/fabscope_bench_kernel_bandwidth"
#    Nsight Compute on a few fill and verify launches: DRAM and SM throughput against peak.
step kernel-ncu        25 bash "$self" __ncu
# d. parity with nccl-tests at one rank: nine collectives, 5 alternations. One run of either
#    tool takes ~1.5 s there (mostly CUDA and NCCL start): ~15 s of starts an alternation
#    (nccl-tests runs one binary per collective), and --budget keeps each step in.
#    Below 8 MiB an iteration is 5-8 us and bound by the host's launches: at -n 60 a timed
#    loop lasted ~0.4 ms and the pairs scattered 0.24-1.41 both ways (H100, issue 35), so the
#    small sizes get their own step with 1000 iterations (~6-20 ms a loop).
step parity-np1-small  75 python3 "$PARITY" --nccl-tests "$NT" --fabscope "$F" --collective all \
  -b 1M -e 4M -n 1000 -w 100 --reps 5 --batch --budget 70 --timeout 30 --keep "$W/parity-np1-small" \
  --json "$W/parity-np1-small.json"
step parity-np1        85 python3 "$PARITY" --nccl-tests "$NT" --fabscope "$F" --collective all \
  -b 8M -e 1G -n 20 -w 5 --reps 5 --batch --budget 80 --timeout 30 --keep "$W/parity-np1" --json "$W/parity-np1.json"
# e. parity at two ranks sharing the GPU (mpirun's default binding), NCCL's Socket
#    transport (~1.9 GB/s: 64 MiB allreduce ~36 ms per iteration), 1-64 MiB, 3 alternations:
#    ~3.5 s of start per two-rank run, ~47 s an alternation of nine collectives at -n 10
#    (3 in 141 s on an H100).
step parity-np2       150 python3 "$PARITY" --nccl-tests "$NT" --fabscope "$F" --collective all \
  --np 2 --share-gpus --mpirun "${MPIRUN_BASE[*]}" -b 1M -e 64M -n 10 -w 2 --reps 3 --batch \
  --budget 145 --timeout 60 --keep "$W/parity-np2" --json "$W/parity-np2.json"
# f. what the profiler plugin costs, two ranks sharing the GPU
step profiler-overhead 25 bash "$self" __profiler_overhead
# g. diagnose over nccl (two ranks sharing the GPU, then one), p2p, every collective verified
step diagnose-np2      30 "${MPIRUN[@]}" "$F" diagnose --backend nccl --share-gpus --budget 20 \
  --json "$W/diagnose-np2.json" --html "$W/diagnose-np2.html"
step diagnose-np1      15 "$F" diagnose --backend nccl --budget 10 --json "$W/diagnose-np1.json"
step p2p-np2           10 "${MPIRUN[@]}" "$F" p2p --backend nccl --share-gpus --pattern pairs -s 4M \
  --nccl-debug-dir "$W/nccl-logs/p2p-np2" --json "$W/p2p-np2.json"
step sweep-all-np1     10 "$F" sweep all -b 8 -e 64M -f 8 -n 5 --backend nccl \
  --nccl-debug-dir "$W/nccl-logs/sweep-all-np1" --json "$W/sweep-all-np1.json"
# h. topology, live and from the NCCL logs p2p-np2 wrote (Socket over eth0)
step topo-live          5 "$F" topo --json "$W/topo-live.json"
step topo-ncclog        5 "$F" topo --nccl-log "$W/nccl-logs/p2p-np2" --json "$W/topo-ncclog.json"

# --- part 2: a running job watched (issue 40) ---
in_part=2
step env2               5 bash "$self" __env
#    a minute of all-reduce (two ranks sharing the GPU) with the plugin set only by its
#    environment lines, snapshots every 2 s and the Prometheus textfile; watch beside it
step watch-np2        110 bash "$self" __watch
#    busbw with and without snapshots (every 0.5 s), alternating 3 times: target >= 0.99
step snapshot-overhead 60 bash "$self" __snapshot_overhead

# --- part 3: the pattern kernels in detail (issue 35) ---
in_part=3
step env3               5 bash "$self" __env
#    the GPU tests first: the kernels taken apart are the ones that verify
step gtest-kernels3    15 "$C/bin/fabscope_gpu_tests"
step kernel-bw3        10 "$C/bin/fabscope_bench_kernel_bandwidth"
step kernel-sass       20 bash "$self" __kernel_sass
step kernel-ncu-detail 120 bash "$self" __ncu_detail

if [ "$dry" = 1 ]; then
  echo "total ${total}s (limit ${LIMIT}s)"
  [ "$total" -le "$LIMIT" ] || { echo "gpu_check: the timeouts add up to more than ${LIMIT}s" >&2; exit 1; }
  exit 0
fi
echo "total $(( ($(date +%s%N) - T0) / 1000000000 ))s (timeouts ${total}s)" | tee -a "$OUT/steps.txt"
cp "$OUT/steps.txt" "$W/steps.txt"
tar -C "$W" -czf "$OUT/gpu-check.tgz.part" . && mv -f "$OUT/gpu-check.tgz.part" "$OUT/gpu-check.tgz"
ls -l "$OUT"
